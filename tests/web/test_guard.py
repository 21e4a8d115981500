"""The server's refusals: paths not offered, foreign hosts, form posts, other sites, the token,
a full search queue, the games kept per client, the body limit (Starlette's TestClient)."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")
from helpers import stop_process
from starlette.testclient import TestClient  # noqa: E402

from tw_rl.web.app import ServerSettings, create_app  # noqa: E402
from tw_rl.web.bots import Bot  # noqa: E402
from tw_rl.web.limits import Limits, WorkQueue  # noqa: E402

from .conftest import record_text  # noqa: E402

LOCAL = "http://127.0.0.1:8000"


def local_client(settings: ServerSettings | None = None, base_url: str = LOCAL) -> TestClient:
    return TestClient(create_app(settings), raise_server_exceptions=False, base_url=base_url)


@pytest.fixture
def client():
    with local_client() as c:
        yield c


def one_line_error(response) -> str:
    error = response.json()["error"]
    assert "\n" not in error and "Traceback" not in error
    return error


# ------------------------------------------------------------------------- paths


@pytest.mark.parametrize("path", ["/etc/passwd", "/etc/nonexistent", "../../teacher-default.pt", "~/x.pt"])
def test_a_path_is_never_a_checkpoint_and_the_answer_says_nothing_of_the_disk(client, path):
    """Existing and missing files get the same refusal, as a bot and in the analysis."""
    game = client.post("/api/games", json={"bot": f"ckpt:{path}@1"})
    assert game.status_code == 400
    assert one_line_error(game) == (
        f"checkpoint {path!r} is not offered: this server offers the checkpoints default (0): "
        "give a name or its number"
    )
    summary = client.post("/api/study", json={"record": record_text(2), "size": 6}).json()
    analysis = client.get(f"/api/study/{summary['id']}/analysis/1", params={"checkpoint": path})
    assert analysis.status_code == 400 and one_line_error(analysis) == one_line_error(game)
    view = client.post("/api/games", json={"bot": "random", "seed": 1}).json()
    evaluation = client.get(f"/api/games/{view['id']}/eval/0", params={"by": path})
    assert evaluation.status_code == 400 and one_line_error(evaluation) == one_line_error(game)


def test_a_number_past_the_offered_ones_is_refused(client):
    response = client.post("/api/games", json={"bot": "ckpt:1@1"})
    assert response.status_code == 400 and "'1' is not offered" in one_line_error(response)


# -------------------------------------------------------------------- host, origin


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", ""])
def test_a_foreign_host_is_refused(client, host):
    for method, path in [("GET", "/"), ("GET", "/api/options"), ("POST", "/api/games")]:
        response = client.request(method, path, headers={"Host": host}, json={"bot": "random"})
        assert response.status_code == 403, (method, path)
        assert "this server answers to 127.0.0.1, ::1, localhost only" in one_line_error(response)


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST"])
def test_the_loopback_names_are_served(client, host):
    assert client.get("/api/options", headers={"Host": host}).status_code == 200


def test_an_allowed_name_is_served_and_any_name_with_none():
    with local_client(ServerSettings(allowed_hosts=frozenset({"box.lan"})), "http://box.lan:8000") as c:
        assert c.get("/api/options").status_code == 200
        assert c.get("/api/options", headers={"Host": "other.lan"}).status_code == 403
    with local_client(ServerSettings(allowed_hosts=None, token="t"), "http://any.name") as c:
        assert c.get("/api/options", params={"token": "t"}).status_code == 200


@pytest.mark.parametrize(
    "headers, body",
    [
        ({"Content-Type": "application/x-www-form-urlencoded"}, b"bot=random"),
        ({"Content-Type": "multipart/form-data; boundary=x"}, b"--x--"),
        ({"Content-Type": "text/plain"}, b'{"bot": "random"}'),
        ({}, b'{"bot": "random"}'),
    ],
)
def test_a_post_that_is_not_json_is_refused_before_any_work(client, headers, body):
    for path in ("/api/games", "/api/study"):
        response = client.post(path, content=body, headers=headers)
        assert response.status_code == 415
        assert "must be sent as Content-Type: application/json" in one_line_error(response)


def test_a_post_from_another_origin_is_refused(client):
    for origin in ("http://evil.example", "null", "http://127.0.0.1:9999", "https://127.0.0.1:8000"):
        response = client.post("/api/games", json={"bot": "random"}, headers={"Origin": origin})
        assert response.status_code == 403 and "another site" in one_line_error(response)
    same = client.post("/api/games", json={"bot": "random"}, headers={"Origin": LOCAL})
    assert same.status_code == 200
    json_with_charset = client.post(
        "/api/games",
        content=b'{"bot": "random"}',
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert json_with_charset.status_code == 200


# ------------------------------------------------------------------------- token


def test_a_server_with_a_token_refuses_requests_without_it():
    with local_client(ServerSettings(token="s3cret")) as c:
        for path in ("/", "/api/options", "/static/page.js"):
            response = c.get(path)
            assert response.status_code == 403 and "needs its token" in one_line_error(response)
        wrong = c.get("/api/options", params={"token": "guess"})
        assert wrong.status_code == 403 and one_line_error(wrong) == "wrong token for this server"
        assert c.post("/api/games", json={"bot": "random"}).status_code == 403
        header = c.get("/api/options", headers={"Authorization": "token s3cret"})
        assert header.status_code == 200
        # The first visit with the token in the address leaves it in a cookie for the page's calls.
        first = c.get("/", params={"token": "s3cret"})
        assert first.status_code == 200 and "tw_rl_token=s3cret" in first.headers["set-cookie"]
        assert "HttpOnly" in first.headers["set-cookie"] and "SameSite=Strict" in first.headers["set-cookie"]
        assert c.post("/api/games", json={"bot": "random"}).status_code == 200  # by the cookie


def _serve(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tw_rl.cli", "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_serve_beyond_loopback_prints_a_token_and_refuses_requests_without_it():
    process = _serve("--host", "0.0.0.0")
    try:
        line = process.stdout.readline()
        match = re.search(r"http://[^/ ]+:(\d+)/\?token=([A-Za-z0-9_\-]{20,})", line)
        assert match, line
        port, token = match.groups()
        assert "needs the token" in process.stdout.readline()
        base = f"http://127.0.0.1:{port}/api/options"
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(base, timeout=10)
        assert refused.value.code == 403
        with urllib.request.urlopen(f"{base}?token={token}", timeout=10) as answer:
            assert answer.status == 200
    finally:
        stop_process(process)


def test_serve_on_loopback_needs_no_token_unless_asked(tmp_path):
    for args, wants_token in [((), False), (("--token",), True)]:
        process = _serve(*args)
        try:
            line = process.stdout.readline()
            assert ("?token=" in line) == wants_token, line
            port = re.search(r":(\d+)/", line).group(1)
            try:
                status = urllib.request.urlopen(f"http://127.0.0.1:{port}/api/options", timeout=10).status
            except urllib.error.HTTPError as err:
                status = err.code
            assert status == (403 if wants_token else 200)
        finally:
            stop_process(process)


# ----------------------------------------------------------------------- bounded work


def test_a_full_search_queue_answers_429_and_frees_up(monkeypatch):
    """One slot, no queue: while the bot thinks, another search is refused at once."""
    thinking, release = threading.Event(), threading.Event()
    real = Bot.choose

    def slow_choose(self, state):
        if self.spec.kind == "greedy":
            thinking.set()
            release.wait(10)
        return real(self, state)

    monkeypatch.setattr(Bot, "choose", slow_choose)
    with local_client(ServerSettings(limits=Limits(searches=1, queue=0))) as c:
        view = c.post("/api/games", json={"bot": "random", "seed": 3}).json()
        answers = {}
        first = threading.Thread(
            target=lambda: answers.setdefault(
                "slow", c.post("/api/games", json={"bot": "greedy", "colour": "white"})
            )
        )
        first.start()
        assert thinking.wait(10)
        busy = c.post(
            f"/api/games/{view['id']}/move",
            json={"move": view["board"]["names"][view["position"]["legal"][0]]},
        )
        assert busy.status_code == 429 and busy.headers["retry-after"]
        assert one_line_error(busy).startswith("the server is busy: 1 searches running and 0 waiting")
        assert c.post(f"/api/games/{view['id']}/hint", json={}).status_code == 429
        assert c.get(f"/api/games/{view['id']}").status_code == 200  # reading needs no slot
        release.set()
        first.join(10)
        assert answers["slow"].status_code == 200
        again = c.post(f"/api/games/{view['id']}/hint", json={})
        assert again.status_code == 200


def test_the_queue_lets_waiting_work_through_in_turn():
    queue = WorkQueue(running=1, waiting=3, wait_seconds=10)
    gate = threading.Event()
    order = []
    threads = [threading.Thread(target=queue.run, args=(lambda: gate.wait(10),))]
    threads += [threading.Thread(target=queue.run, args=(order.append, k)) for k in range(3)]
    for t in threads:
        t.start()
    while queue.waiting < 3:
        threading.Event().wait(0.01)
    with pytest.raises(Exception, match="busy"):
        queue.run(order.append, "refused")
    gate.set()
    for t in threads:
        t.join(10)
    assert sorted(order) == [0, 1, 2] and queue.running == 0 and queue.waiting == 0


def test_a_client_keeps_only_its_newest_games():
    """By its cookie; clients without one are counted together by their address."""
    with local_client(ServerSettings(limits=Limits(games_per_client=2))) as c:
        c.get("/")  # a browser's first visit: the client cookie
        ids = [c.post("/api/games", json={"bot": "random", "seed": k}).json()["id"] for k in range(3)]
        assert c.get(f"/api/games/{ids[0]}").status_code == 404
        assert all(c.get(f"/api/games/{i}").status_code == 200 for i in ids[1:])
        with local_client(ServerSettings(limits=Limits(games_per_client=2))) as other:
            cookieless = []
            for _ in range(3):
                other.cookies.clear()
                cookieless.append(other.post("/api/games", json={"bot": "random"}).json()["id"])
            other.cookies.clear()
            assert other.get(f"/api/games/{cookieless[0]}").status_code == 404
            assert other.get(f"/api/games/{cookieless[2]}").status_code == 200


def test_the_client_cookie_keeps_games_apart():
    with local_client(ServerSettings(limits=Limits(games_per_client=1))) as c:
        first = c.post("/api/games", json={"bot": "random"})
        cookie = first.cookies.get("tw_rl_client")
        assert cookie and re.fullmatch(r"[0-9a-f]{32}", cookie)
        a = first.json()["id"]
        c.cookies.clear()
        c.cookies.set("tw_rl_client", "f" * 32)
        b = c.post("/api/games", json={"bot": "random"}).json()["id"]
        assert c.get(f"/api/games/{a}").status_code == 200 and c.get(f"/api/games/{b}").status_code == 200
        c.cookies.set("tw_rl_client", "f" * 32)
        c.post("/api/games", json={"bot": "random"})
        assert c.get(f"/api/games/{b}").status_code == 404  # that client's one game was replaced


def test_a_body_over_the_limit_is_413_whatever_its_length_header(client):
    big = b'{"record": "' + b"x" * 300_000 + b'"}'
    response = client.post("/api/study", content=big, headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and "at most 200000" in one_line_error(response)

    def chunks():
        yield b'{"record": "'
        for _ in range(40):
            yield b"x" * 10_000
        yield b'"}'

    streamed = client.post("/api/study", content=chunks(), headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413 and "over 200000 bytes" in one_line_error(streamed)


def test_the_page_states_the_limits(client):
    limits = client.get("/api/options").json()["limits"]
    assert limits["bot_seconds"] == [0.1, 300.0] and limits["move_seconds"] == 10.0
    assert limits["body_bytes"] == 200_000 and limits["searches"] == 2 and limits["queue"] == 32


def test_databases_are_offered_by_name_or_number_only(results_db, tmp_path):
    other = tmp_path / "other" / "results.sqlite"
    other.parent.mkdir()
    other.write_bytes(results_db.read_bytes())
    with local_client(ServerSettings(dbs=[str(results_db), str(other)])) as c:
        options = c.get("/api/options").json()
        assert options["dbs"] == ["results", "results-2"] and options["db"] == "results"
        assert str(tmp_path) not in c.get("/api/options").text
        assert c.get("/api/stored").json()["db"] == "results"
        listing = c.get("/api/stored", params={"db": "1"}).json()
        assert listing["db"] == "results-2" and [g["id"] for g in listing["games"]] == [1, 2]
        for name in (str(results_db), "/etc/passwd", "2"):
            refused = c.get("/api/stored", params={"db": name})
            assert refused.status_code == 400
            assert one_line_error(refused).startswith("database '")  # even the server's own path
            assert one_line_error(refused).endswith(
                "is not offered: this server offers the databases results (0), results-2 (1): "
                "give a name or its number"
            )
            study = c.post("/api/study", json={"db_game": 1, "db": name})
            assert study.status_code == 400 and "is not offered" in one_line_error(study)
        opened = c.post("/api/study", json={"db_game": 1, "db": "results-2"}).json()
        assert opened["title"].endswith("(results-2)")


@pytest.mark.parametrize(
    "body, words",
    [
        (b"[" * 90_000 + b"]" * 90_000, "the request body is not JSON"),  # deeper than the parser goes
        (b'{"size": 1e400}', "size must be a whole number"),
        (b'{"size": NaN}', "size must be a whole number"),
        (b'{"size": "' + b"9" * 5000 + b'"}', "size must be a whole number"),
        (b'{"seed": 1e30}', "seed must be 0 to"),
    ],
)
def test_pathological_bodies_get_one_line(client, body, words):
    response = client.post("/api/games", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 400 and words in one_line_error(response)
