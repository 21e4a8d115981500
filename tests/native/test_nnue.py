"""The native network (arch nnue-1) against its torch twin: the inputs and the outputs agree on
positions of greedy-and-random games (the int8 and int16 networks exactly, the float one to
1e-5), a planted bug in one input group is caught, searches with the integer and the float
network pick the same move (99% of the time with int16, 95% with int8), the submission with the
network compiles with warnings as errors and plays whole games (also under ASan/UBSan), and a
file with a wrong tag, board size, checksum or coded run is refused in one line (by the native
bot, the Python reader and the builder)."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
import torch
from native_crosscheck import random_games, text

from tw_rl.codecup import weights as fmt
from tw_rl.codecup.errors import WeightsError
from tw_rl.expert import nnue_check as check
from tw_rl.expert.nnue_features import position_rows
from tw_rl.expert.nnue_net import NnueNet, load_weights, weights_bytes, write_weights
from tw_rl.export.submission_check import play_check_game
from tw_rl.native import build, nnue_file


def _busy_net(scheme: str) -> NnueNet:
    """A small network with every tensor busy (random policy weights too), its weights on the
    int8 grid except for a little noise, so that float and integer networks differ a little."""
    net = NnueNet(width=32, hidden=8, seed=3, scheme=scheme)
    g = torch.Generator().manual_seed(4)
    with torch.no_grad():
        net.pol_w.copy_(torch.randn(net.pol_w.shape, generator=g) * 1.0)
        net.pol_cell.copy_(torch.randn(net.pol_cell.shape, generator=g) * 1.5)
        net.pol_b.copy_(torch.randn(net.pol_b.shape, generator=g) * 0.2)
        net.l2_b.copy_(torch.randn(net.l2_b.shape, generator=g) * 0.2)
        net.out_b.copy_(torch.tensor([0.1, -0.05]))
        for name in ("ft_w", "l2_w", "out_w", "pol_w", "pol_cell"):
            w = getattr(net, name)
            w.copy_(torch.round(w * 64) / 64 + torch.randn(w.shape, generator=g) * 0.0005)
    net.clip_()
    return net


def _files(net: NnueNet, folder) -> tuple:
    """The network's integer file (its scheme) and its float32 file."""
    write_weights(net, folder / "nnue.twnet", net.scheme.name)
    write_weights(net, folder / "nnue-float.twnet", "float32")
    return folder / "nnue.twnet", folder / "nnue-float.twnet"


@pytest.fixture(scope="module", params=["int8", "int16"])
def any_net(request, tmp_path_factory):
    """(network, its files) in each integer scheme."""
    net = _busy_net(request.param)
    return net, _files(net, tmp_path_factory.mktemp(f"nnue-{request.param}"))


@pytest.fixture(scope="module")
def nnue_net():
    return _busy_net("int16")


@pytest.fixture(scope="module")
def nnue_files(nnue_net, tmp_path_factory):
    return _files(nnue_net, tmp_path_factory.mktemp("nnue"))


@pytest.fixture(scope="module")
def records():
    return check.game_positions(4, seed=21)[::3]


def test_the_inputs_agree(native_tools_bin, records):
    assert len(records) > 40
    native = check.native_rows(native_tools_bin, records)
    assert native == [position_rows(check.position(r)) for r in records]


def test_the_integer_outputs_agree_exactly_and_the_float_ones_closely(native_tools_bin, any_net, records):
    nnue_net, (integer, float32) = any_net
    exact = check.largest_differences(
        check.native_outputs(native_tools_bin, integer, records),
        check.twin_outputs(nnue_net, records, True),
        records,
    )
    assert max(exact.values()) < 1e-5, exact  # float32 holds the integers; only the last rounding differs
    close = check.largest_differences(
        check.native_outputs(native_tools_bin, float32, records),
        check.twin_outputs(nnue_net, records, False),
        records,
    )
    assert max(close.values()) < 1e-4, close  # float32 (torch) against double (C++)
    # the outputs are not trivially equal: quantization moves them a little, the positions a lot
    apart = check.largest_differences(
        check.twin_outputs(nnue_net, records, True), check.twin_outputs(nnue_net, records, False), records
    )
    assert 1e-6 < apart["logits"] < 0.5
    assert check.twin_outputs(nnue_net, records, True)["value_logit"].std() > 0.01


def test_the_twin_reads_back_what_it_wrote(any_net, records):
    nnue_net, nnue_files = any_net
    back = load_weights(nnue_files[0])
    assert back.scheme == nnue_net.scheme
    a = check.twin_outputs(nnue_net, records[:10], True)
    b = check.twin_outputs(back, records[:10], True)
    assert check.largest_differences(a, b, records[:10])["logits"] == 0.0


@pytest.mark.parametrize(
    "old, new",
    [
        ("int nnue_cap4(int x) { return x > 4 ? 4 : x; }", "int nnue_cap4(int x) { return x > 5 ? 5 : x; }"),
        ("(BOARD.has(their_legal, i) ? 1 : 0)", "(BOARD.has(my_legal, i) ? 1 : 0)"),
        ("(BOARD.has(their_land, i) ? 1 : 0)", "0"),
    ],
    ids=["sight-cap", "legal-swapped", "territory-dropped"],
)
def test_a_planted_bug_in_one_input_group_is_caught(native_tools_source, compile_variant, records, old, new):
    text = native_tools_source.read_text()
    assert text.count(old) == 1
    mutant = compile_variant(f"nnue-mutant-{len(old)}", text.replace(old, new), ("-std=c++17", "-O1"))
    native = check.native_rows(mutant, records)
    assert native != [position_rows(check.position(r)) for r in records]


def test_integer_and_float_searches_pick_the_same_move(native_tools_bin, any_net):
    """A fixed search of 64 simulations with the C++ integer network and with the same network
    in float (the C++ double path): the same move on at least 99% of the positions with int16
    (the issue's target), 95% with int8 (95.5% on the trained network, see
    docs/results/2026-12-07.md: a 64-simulation search turns small differences of near-equal
    moves into another choice)."""
    nnue_net, (integer, float32) = any_net
    positions = [r for r in check.game_positions(6, seed=5) if len(check.position(r).legal_moves()) > 1][::2]
    assert len(positions) >= 100
    a = check.search_moves(native_tools_bin, integer, positions, 64)
    b = check.search_moves(native_tools_bin, float32, positions, 64)
    same = sum(x == y for x, y in zip(a, b, strict=True))
    share = {"int8": 0.95, "int16": 0.99}[nnue_net.scheme.name]
    assert same >= share * len(positions), (same, len(positions))


@pytest.fixture(scope="module")
def nnue_submission(nnue_files, tmp_path_factory):
    folder = tmp_path_factory.mktemp("nnue-submission")
    info = build.build_native_submission(nnue_files[0], folder / "submission.cpp")
    assert info.size <= build.SIZE_LIMIT
    return info.path


@pytest.mark.parametrize("colour", ["red", "white"])
def test_the_submission_compiles_strictly_and_plays_a_whole_game(
    nnue_submission, compile_variant, tmp_path, colour
):
    binary = compile_variant(
        "nnue-strict", nnue_submission.read_text(), (*build.STRICT_FLAGS, "-Wall", "-Wextra")
    )
    report = play_check_game([str(binary), "--time", "2"], colour, seed=9, cwd=tmp_path)
    assert report.ok, report.problem
    assert report.answers > 10


@pytest.mark.slow
def test_games_under_address_and_undefined_behaviour_sanitizers(nnue_submission, compile_variant, tmp_path):
    asan = compile_variant(
        "nnue-asan",
        nnue_submission.read_text(),
        ("-std=c++17", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"),
    )
    for seed, colour in ((1, "red"), (2, "white")):
        report = play_check_game([str(asan), "--time", "4"], colour, seed=seed, cwd=tmp_path, move_timeout=60)
        assert report.ok, (report.problem, report.stderr[-2000:])


def _rewritten(data: bytes, kind: str) -> bytes:
    """The file with its tag or board size changed, or its first z16 run's last value cut
    short (checksum recomputed), or a byte flipped."""
    if kind == "checksum":
        out = bytearray(data)
        out[len(out) // 2] ^= 0x55
        return bytes(out)
    magic, version, size, head_len, data_len = fmt.PREFIX.unpack_from(data, 0)
    head = data[fmt.PREFIX.size : fmt.PREFIX.size + head_len]
    rest = data[fmt.PREFIX.size + head_len : -fmt.DIGEST_SIZE]
    if kind == "tag":
        head = head.replace(b'"arch":"nnue-1"', b'"arch":"nnue-9"')
    elif kind == "z16":
        first = json.loads(head)["tensors"][0]
        assert first["name"] == "ft_w" and first["dtype"] == "z16"
        rest = bytearray(rest)
        rest[first["bytes"] - 1] |= 0x80  # its last byte now says that more follow
        rest = bytes(rest)
    else:
        size = 8
    body = fmt.PREFIX.pack(magic, version, size, len(head), data_len) + head + rest
    return body + hashlib.sha256(body).digest()


@pytest.mark.parametrize(
    "kind, reason",
    [
        ("tag", "holds a 'nnue-9' network"),
        ("size", "made for the size-8 board"),
        ("checksum", "checksum mismatch"),
        ("z16", "tensor 'ft_w' is not 136864 int16 values in"),
    ],
)
def test_a_bad_file_is_refused_in_one_line(native_bin, nnue_net, tmp_path, kind, reason):
    path = tmp_path / f"{kind}.twnet"
    path.write_bytes(_rewritten(weights_bytes(nnue_net, "int16"), kind))
    native = subprocess.run(
        [str(native_bin), "--weights", str(path)], input="", capture_output=True, text=True
    )
    assert native.returncode == 2 and len(native.stderr.splitlines()) == 1, native.stderr
    assert reason in native.stderr
    with pytest.raises(WeightsError, match=reason.replace("'", ".")):
        nnue_file.check(fmt.read_weights(str(path), 6))
    with pytest.raises(build.NativeBuildError, match="refuse"):
        build.build_native_submission(path, tmp_path / "submission.cpp")


def test_the_python_bot_refuses_the_native_network_in_one_line(nnue_files):
    done = subprocess.run(
        [sys.executable, "-m", "tw_rl.codecup", "--weights", str(nnue_files[0])],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1
    assert "'nnue-1' network, not 'student-1'" in done.stderr


def test_the_default_utility_is_the_points_with_the_network_and_the_win_with_the_student(
    native_tools_bin, nnue_files
):
    """--utility auto (the default) searches for the points where the evaluator forecasts the
    margin (the native network) and for the win where it does not (the shipped student)."""
    lines = "".join(text(r) + "\n" for r in random_games(1, seed=8)[10:40:10])

    def signature(*options):
        done = subprocess.run(
            [str(native_tools_bin), "--bench", "200", *options],
            input=lines,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return json.loads(done.stdout)["signature"]

    network = ["--weights", str(nnue_files[0])]
    assert signature(*network) == signature(*network, "--utility", "points")
    assert signature(*network) != signature(*network, "--utility", "win")
    assert signature() == signature("--utility", "win") != signature("--utility", "points")
