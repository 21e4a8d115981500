"""Reader of the student network's weights file (standard library only).

The file (written by ``tw_rl.export.weights_file``; little-endian throughout)::

    offset  size  field
    0       8     magic b"TWNET\\r\\n\\x1a" (the CR-LF and ^Z catch text-mode mangling, as in PNG)
    8       2     format version (uint16), FORMAT_VERSION
    10      2     board size (uint16): cells per side the network was trained on
    12      4     header length H (uint32)
    16      4     data length D (uint32)
    20      H     header: UTF-8 JSON object, see below
    20+H    D     tensor data, the tensors in header order
    20+H+D  32    sha256 of every byte before it

Header keys: ``arch`` (the network, e.g. "student-1"), ``quantization`` ("int8" or
"float16"), ``tensors`` (a list of ``{"name", "shape", "dtype"}``), the architecture's
hyper-parameters (``width``, ``hidden``, ``mixing``, ...) and a free-form ``meta`` object
(teacher, distillation figures).  Tensors have one or two dimensions and are stored row-major
by ``dtype``:

- "f32": float32 values (struct "f");
- "f16": float16 values (struct "e");
- "i8":  one float32 scale per row (the first axis: the output channel of a linear map, one
  table row of an embedding), then the int8 values (struct "b"); value = int8 * row scale;
- "z16": one float32 scale per row, then the int16 values zigzag-coded (0, -1, 1, -2, ... as
  0, 1, 2, 3, ...) in variable-length groups of 7 bits, low group first, the top bit set on
  every byte of a value but its last (at most 3 bytes a value); value = int16 * row scale.
  Its length is not fixed by the shape: the tensor's entry says it in ``"bytes"``.

The reader checks, in this order, the length, magic, version, checksum, header and data
sizes, and (when asked) the board size; any mismatch raises ``WeightsError`` with one line.
``load_weights`` takes a path or the file's bytes (the submission's embedded copy).
``WeightsError`` (``errors.py``) is an ``EvaluatorError``, so the bot's command line reports
it in one line and exits 2.  (``weights.WeightsError`` stays importable from here.)

Default networks: ``DEFAULT_NETWORKS`` is the one table of the students shipped with the package
(package data beside this module), by board size; ``default_weights(size)`` is the file of a
board, or None where none is shipped (or inside a submission, which embeds its own).  Shipping
a network for another board is one entry here and its file in ``pyproject.toml``'s package data.
"""

import hashlib
import json
import os
import struct

from tw_rl.codecup.errors import WeightsError

MAGIC = b"TWNET\r\n\x1a"
FORMAT_VERSION = 1
PREFIX = struct.Struct("<8sHHII")  # magic, version, board size, header length, data length
DIGEST_SIZE = 32  # sha256
QUANTIZATIONS = ("int8", "float16")
DTYPES = ("f32", "f16", "i8", "z16")
Z16_MAX = 32767  # the largest |value| of a z16 tensor

CODECUP_SIZE = 6  # the CodeCup's board: the bot's default --size, the one the submission plays
# board size -> the student shipped for it (a file name beside this module)
DEFAULT_NETWORKS = {CODECUP_SIZE: "student-default.twnet"}
PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def default_weights(board_size):
    """The shipped weights file for this board size, or None (none shipped, or not installed)."""
    name = DEFAULT_NETWORKS.get(board_size)
    path = os.path.join(PACKAGE_DIR, name) if name else None
    return path if path is not None and os.path.isfile(path) else None


class Weights:
    """A parsed weights file: header, board size and tensors (flat lists of floats)."""

    def __init__(self, version, board_size, header, tensors):
        self.version = version
        self.board_size = board_size
        self.header = header
        self.tensors = tensors  # name -> (shape tuple, flat list of floats, row-major)

    def tensor(self, name):
        """(shape, flat values) of a tensor; WeightsError when the file lacks it."""
        try:
            return self.tensors[name]
        except KeyError:
            raise WeightsError(f"the weights file has no tensor {name!r}") from None

    def rows(self, name):
        """A 2-D tensor as a list of rows (lists); a 1-D one as a single list."""
        shape, values = self.tensor(name)
        if len(shape) == 1:
            return list(values)
        cols = shape[1]
        return [values[r * cols : (r + 1) * cols] for r in range(shape[0])]


def _count(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def tensor_bytes(shape, dtype, stated=None):
    """Bytes a tensor of this shape and dtype takes in the data section (z16: ``stated``, the
    tensor entry's "bytes", if it can be that long; else None)."""
    n = _count(shape)
    if dtype == "f32":
        return 4 * n
    if dtype == "f16":
        return 2 * n
    if dtype == "z16":
        fits = isinstance(stated, int) and 4 * shape[0] + n <= stated <= 4 * shape[0] + 3 * n
        return stated if fits else None
    return 4 * shape[0] + n  # i8: a float32 scale per row, then one byte per value


def zigzag_values(data, start, stop, count):
    """The ``count`` int16 values of a z16 run data[start:stop]; None unless it holds exactly those."""
    values = []
    x = shift = 0
    for pos in range(start, stop):
        byte = data[pos]
        x |= (byte & 127) << shift
        if byte & 128:
            shift += 7
            if shift > 14:
                return None
            continue
        value = (x >> 1) ^ -(x & 1)
        if abs(value) > Z16_MAX:
            return None
        values.append(value)
        x = shift = 0
    return values if shift == 0 and len(values) == count else None


def _decode(data, offset, shape, dtype, nbytes):
    n = _count(shape)
    if dtype == "f32":
        return list(struct.unpack_from(f"<{n}f", data, offset))
    if dtype == "f16":
        return list(struct.unpack_from(f"<{n}e", data, offset))
    rows = shape[0]
    cols = n // rows if rows else 0
    scales = struct.unpack_from(f"<{rows}f", data, offset)
    if dtype == "z16":
        q = zigzag_values(data, offset + 4 * rows, offset + nbytes, n)
        if q is None:
            return None
    else:
        q = struct.unpack_from(f"<{n}b", data, offset + 4 * rows)
    out = []
    for r in range(rows):
        s = scales[r]
        out.extend([v * s for v in q[r * cols : (r + 1) * cols]])
    return out


def parse_weights(data, board_size=None, name="weights file"):
    """Weights from the bytes of a weights file; board_size (if given) must match."""
    if len(data) < PREFIX.size + DIGEST_SIZE:
        raise WeightsError(f"{name}: too short to be a tw_rl weights file ({len(data)} bytes)")
    magic, version, size, header_len, data_len = PREFIX.unpack_from(data, 0)
    if magic != MAGIC:
        raise WeightsError(f"{name}: not a tw_rl weights file (bad magic {magic[:8]!r})")
    if version != FORMAT_VERSION:
        raise WeightsError(
            f"{name}: weights format version {version}, this bot reads version {FORMAT_VERSION} only"
        )
    end = PREFIX.size + header_len + data_len
    if len(data) != end + DIGEST_SIZE:
        raise WeightsError(
            f"{name}: {len(data)} bytes where its lengths say {end + DIGEST_SIZE} (truncated or padded)"
        )
    if hashlib.sha256(data[:end]).digest() != data[end:]:
        raise WeightsError(f"{name}: checksum mismatch (the file is damaged)")
    try:
        header = json.loads(data[PREFIX.size : PREFIX.size + header_len].decode("utf-8"))
        specs = [
            (str(t["name"]), tuple(int(d) for d in t["shape"]), t["dtype"], t.get("bytes"))
            for t in header["tensors"]
        ]
    except (ValueError, KeyError, TypeError) as err:
        raise WeightsError(f"{name}: unreadable header ({type(err).__name__}: {err})") from None
    if not isinstance(header, dict):
        raise WeightsError(f"{name}: unreadable header (not a JSON object)")
    offset = PREFIX.size + header_len
    need = 0
    sizes = []
    for tname, shape, dtype, stated in specs:
        if dtype not in DTYPES or not 1 <= len(shape) <= 2 or min(shape) < 1:
            raise WeightsError(f"{name}: tensor {tname!r} has an unsupported dtype or shape")
        size_of = tensor_bytes(shape, dtype, stated)
        if size_of is None:
            raise WeightsError(f"{name}: tensor {tname!r} states an impossible length ({stated!r} bytes)")
        sizes.append(size_of)
        need += size_of
    if need != data_len:
        raise WeightsError(f"{name}: the header describes {need} data bytes, the file holds {data_len}")
    if board_size is not None and size != board_size:
        raise WeightsError(f"{name}: the network was made for the size-{size} board, not size {board_size}")
    tensors = {}
    for k, (tname, shape, dtype, _) in enumerate(specs):
        size_of = sizes[k]
        values = _decode(data, offset, shape, dtype, size_of)
        if values is None:
            raise WeightsError(
                f"{name}: tensor {tname!r} is not {_count(shape)} int16 values in {size_of} bytes"
            )
        tensors[tname] = (shape, values)
        offset += size_of
    return Weights(version, size, header, tensors)


def read_weights(path, board_size=None):
    """Weights from a file; WeightsError (one line) when it cannot be used."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as err:
        raise WeightsError(f"cannot read weights file {path}: {err.strerror or err}") from None
    return parse_weights(data, board_size, name=f"weights file {path}")


def load_weights(weights, board_size=None):
    """Weights from a file's path, or from the bytes of a weights file (the submission hands over
    its embedded copy so: no file is written or read); the same checks either way."""
    if isinstance(weights, (bytes, bytearray)):
        return parse_weights(bytes(weights), board_size, name="the embedded weights")
    return read_weights(weights, board_size)
