"""Parsed models kept between processes: a warm start reads no flatbuffer.

Reading a .tflite file (:func:`.tflite_reader.read_model`) goes through the ``tflite``
package: ~200 generated Python modules imported on first use, then one Python call per
flatbuffer field. Under emulation that is seconds before the first function is configured
(face_landmark: importing the package 1.3-4 s, reading 0.45 s; Arm NN's C++ parser loads the
whole model in 0.13 s). The result, a :class:`~.tflite_reader.ModelSpec`, depends only on
the file's bytes and on the reader, so :func:`read_model_cached` keeps it in a file of its own
and the next process reads that instead:

* one file per key: the model's MD5 (a checksum: :func:`model_hash`), this format's version, the
  reader's identity, and whether constant DEQUANTIZEs are folded (``dequantized``)
  (the package version and a stamp of the reader's own source files, so a changed reader
  never meets an old answer); named by the key's hash, in :func:`cache_dir`
  (``$ACL_NDARRAY_MODEL_CACHE``, else ``~/.cache/acl-ndarray/parsed-models``);
* the file is sealed (:func:`acl_bridge.user_cache.seal`: magic, format version, lengths,
  CRC-32 of everything after them), then the graph as JSON (the tensors as columns: names,
  shapes, dtypes, quantization; the operators and their options: plain values), then the
  constants' bytes, each 64-byte aligned. Nothing in it is executed or unpickled;
  the constants come back as read-only numpy views of the file's bytes, read into memory
  that is 64-byte aligned (so each constant is);
* a file that does not parse, whose checksum fails, or whose key is not this one (copied
  from elsewhere) is a :class:`ModelCacheWarning` and a cold read, never an exception; so is
  a directory that cannot be read or written. Saving writes a temporary file beside the
  final one and renames it over (a reader never sees half a file).

The key costs one hash of the model file per start: MD5 as a checksum, several times quicker
than sha256; the same hash is the model's identity (:attr:`ModelSpec.md5`, kept in the cache
file), so a first start hashes the file once. Measurements: docs/performance.md,
"Start-up".
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import math
import os
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ndarray.errors import ArgumentTypeError

from ..._version import __version__
from ...user_cache import (MAX_CACHE_FILE_BYTES, SEAL, CacheFileRejected, check_cache_option, read_trusted, seal,
                          sources_stamp, unseal, user_cache_dir, write_atomically)
from .tflite_quantization import (STORAGE_RANGES, all_true, check_quantization, check_tensor_quantization,
                                  values_hold)
from .tflite_schema import package_directory
from .tflite_reader import (MAX_ELEMENTS, MAX_RANK, ModelSpec, model_hash, OperatorSpec, Quantization, TensorSpec,
                            fold_constant_dequantize, model_bytes, read_model)

DIR_ENV = "ACL_NDARRAY_MODEL_CACHE"
MAGIC = b"ACLNDMS\x00"
FORMAT_VERSION = 4  # 2: CRC-32 seal, MD5 key; 3: tensors as columns; 4: the model's MD5 as its identity (no sha256)
SUFFIX = ".aclmodel"
_ALIGNMENT_IN_BYTES = 64
# the modules whose code decides what read_model returns: part of the key
_READER_SOURCES = ("tflite_reader.py", "flatbuffer_tables.py", "tflite_schema.py", "tflite_quantization.py",
                   "sparsity.py")


class ModelCacheWarning(UserWarning):
    """The parsed-model cache was not used (damaged or foreign file, unreadable or unwritable
    directory): the model was read from its file, with the reason. Never raised as an error."""


@dataclass(frozen=True)
class ModelCacheReport:
    """What the cache did for one read: ``state`` is "off", "cold" (read from the model file:
    ``reason`` says why, and whether the result was saved) or "warm" (read from ``path``)."""

    state: str
    path: Optional[str]
    reason: str = ""
    seconds: float = 0.0


def cache_dir() -> Path:
    """Where parsed models go: $ACL_NDARRAY_MODEL_CACHE, else the per-user cache directory
    ($XDG_CACHE_HOME or ~/.cache) / acl-ndarray/parsed-models."""
    return user_cache_dir("parsed-models", DIR_ENV)


@functools.lru_cache(maxsize=None)
def _reader_identity() -> str:
    """The package version and a stamp (size, modification time) of the reader's source files."""
    digest = sources_stamp(Path(__file__).resolve().parent, _READER_SOURCES, __version__.encode())
    return f"{__version__}+{digest[:16]}"


@functools.lru_cache(maxsize=None)
def _tflite_version() -> Optional[str]:
    """The tflite package's installed version (its metadata directory's name, e.g.
    ``tflite-2.18.0.dist-info``): its generated readers decide what a parse gives (a newer
    schema may read an option an older one skipped). None: not installed. Found without
    importing the package (:func:`.tflite_schema.package_directory`, the reader's own lookup),
    and without importlib.metadata (0.16 s to import on the host, far more under emulation,
    for a start this cache exists to shorten)."""
    try:
        package = package_directory()
    except ImportError:
        return None
    site = os.path.dirname(package)
    try:
        found = sorted(n for n in os.listdir(site) if n.startswith("tflite-") and n.endswith((".dist-info", ".egg-info")))
    except OSError:
        found = []
    return ",".join(found) or f"no metadata beside {package}"


def _key(model_md5: str) -> Dict[str, object]:
    return {"format": FORMAT_VERSION, "model_md5": model_md5, "reader": _reader_identity(),
            "tflite": _tflite_version()}


def file_name(key: Dict[str, object], suffix: str = SUFFIX) -> str:
    """A cache file's name: the hash of its key (this cache's files, and the plan cache's)."""
    return hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:32] + suffix


# ---------------------------------------------------------------------------- the format (pure)
def _align(n: int) -> int:
    return -(-n // _ALIGNMENT_IN_BYTES) * _ALIGNMENT_IN_BYTES


class _Data:
    """The data part of a cache file being written: byte strings, each 64-byte aligned."""

    def __init__(self) -> None:
        self.chunks: List[bytes] = []
        self.size = 0
        self._runs: Dict[Tuple[str, bytes], int] = {}  # (code, bytes) -> offset (numbers)

    def add(self, raw: bytes) -> List[int]:
        """Append ``raw``; its [offset, length] in the data part."""
        start = _align(self.size)
        self.chunks.append(b"\x00" * (start - self.size))
        self.chunks.append(raw)
        self.size = start + len(raw)
        return [start, len(raw)]

    def add_array(self, value: np.ndarray) -> List[int]:
        """Append an array's elements, little-endian (the file's order on any machine); its
        [offset, length] in the data part (read back by :func:`array_at`)."""
        return self.add(np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<")).tobytes())

    def numbers(self, values: Sequence[Any]) -> Any:
        """``values`` (a list or tuple) as JSON: as it is when short or not all of one type,
        else its float64 or int64 bytes in the data part, named by ``{"f8" | "i8": [offset,
        count]}`` (per-channel scales are hundreds of floats, which JSON parses slowly); read
        back by :func:`numbers`."""
        if len(values) > _INLINE_NUMBERS:
            types = set(map(type, values))  # (per-channel scales: hundreds, checked in one pass each)
            for code, kind in (("f8", float), ("i8", int)):
                if types == {kind} and (kind is float or -2 ** 63 <= min(values) and max(values) < 2 ** 63):
                    raw = np.asarray(values, "<" + code).tobytes()
                    if (code, raw) not in self._runs:  # a run written once (a weight's scales recur in its step)
                        self._runs[(code, raw)] = self.add(raw)[0]
                    return {code: [self._runs[(code, raw)], len(values)]}
        return list(values)

    def sealed(self, magic: bytes, head: Dict[str, object]) -> bytes:
        """The file: ``head`` as JSON, padded so that the data starts aligned, then the data."""
        header = json.dumps(head, separators=(",", ":")).encode()
        before_data = len(magic) + SEAL.size + len(header)
        header += b" " * (_align(before_data) - before_data)
        return seal(magic, FORMAT_VERSION, header, b"".join(self.chunks))


_INLINE_NUMBERS = 8  # a list of numbers longer than this goes to the data part (_Data.numbers)


def numbers(v: Any, data: Union[bytes, memoryview], memo: Optional[Dict[tuple, tuple]] = None) -> Any:
    """The inverse of :meth:`_Data.numbers`: a tuple of Python floats or ints (exact: float64 and
    int64 round-trip; one tuple per run where ``memo`` is given: a run recurs), or ``v`` itself
    when it was kept inline."""
    if type(v) is dict:
        ((code, (offset, count)),) = v.items()
        key = (code, offset, count)
        if memo is not None and key in memo:
            return memo[key]
        dtype = {"f8": "<f8", "i8": "<i8"}[code]
        if type(offset) is not int or type(count) is not int or offset < 0 or count < 0 \
                or offset + 8 * count > len(data):
            raise ValueError(f"{count!r} numbers at {offset!r} do not lie in the {len(data)} bytes of data")
        out = tuple(np.frombuffer(data, dtype, count=count, offset=offset).tolist())
        if memo is not None:
            memo[key] = out
        return out
    return v


def array_at(data: Union[bytes, memoryview], at: Any, dtype: np.dtype, shape: Tuple[int, ...],
             in_file: Optional[np.dtype] = None) -> np.ndarray:
    """The inverse of :meth:`_Data.add_array`: the elements at ``at`` ([offset, length] in
    ``data``) as a read-only array of ``dtype`` in the machine's order and ``shape``, a view of
    ``data`` on a little-endian machine; ``in_file``: ``dtype`` little-endian, when the caller
    has it. ValueError where the bytes do not lie in ``data`` or do not fit the shape."""
    offset, size = map(int, at)
    expected = math.prod(shape) * dtype.itemsize
    if offset < 0 or offset + size > len(data) or size != expected:
        raise ValueError(f"data [{offset}, {offset + size}) of {len(data)} bytes, expected {expected} bytes for "
                         f"shape {list(shape)}")
    in_file = dtype.newbyteorder("<") if in_file is None else in_file
    value = np.frombuffer(data, dtype=in_file, count=size // dtype.itemsize, offset=offset).reshape(shape)
    if in_file != dtype:  # a big-endian machine: the file is little-endian
        value = value.astype(dtype)
    value.flags.writeable = False
    return value


def encode_tensors(tensors: Sequence[TensorSpec], data: _Data) -> Dict[str, list]:
    """Tensors (each at its own index) as columns, their constants' bytes (little-endian) added
    to ``data``; ValueError for a tensor out of place."""
    dtypes: Dict[str, int] = {}
    codes: Dict[np.dtype, int] = {}  # (a model has a few dtypes: each one's text made once)
    names, shapes, kinds, where, quants = [], [], [], [], []
    for k, t in enumerate(tensors):
        if t.index != k:
            raise ValueError(f"tensor #{t.index} {t.name!r} stands at position {k}")
        names.append(t.name)
        shapes.append(list(t.shape))
        code = codes.get(t.dtype)
        if code is None:
            code = codes[t.dtype] = dtypes.setdefault(t.dtype.str, len(dtypes))
        kinds.append(code)
        q = t.quantization
        quants.append(None if q is None else [data.numbers(q.scale), data.numbers(q.zero_point), q.quantized_dimension])
        where.append(None if t.data is None else data.add_array(t.data))
    return {"names": names, "shapes": shapes, "dtypes": kinds, "data": where, "quantization": quants,
            "dtype_table": list(dtypes)}


def _run(v: Any, data: Union[bytes, memoryview], memo: Optional[Dict[tuple, tuple]], code: str,
         kind: type, arrays: Dict[int, np.ndarray]) -> tuple:
    """:func:`numbers` of ``v`` as a tuple of ``kind`` (a run kept as ``code`` is that already:
    the memo's own tuple, shared by the tensors that share the run, and its numpy view of the
    file goes into ``arrays`` by ``id(tuple) * 2 + is_float``, for the quantization checks)."""
    values = numbers(v, data, memo)
    if type(v) is dict and code in v:
        offset, count = v[code]
        arrays[id(values) * 2 + (code == "f8")] = np.frombuffer(data, "<" + code, count=count, offset=offset)
        return values  # type: ignore[no-any-return]
    return tuple(map(kind, values))


def _queue_values(shape: Tuple[int, ...], q: Quantization, scales_at: Any, zero_points_at: Any,
                  limits: Tuple[int, int], runs: List[Tuple[int, int, int, int, int, int]],
                  inline: Tuple[list, list, list]) -> bool:
    """Whether ``q`` of an integer tensor (zero points in ``limits``) is shaped as
    :func:`~.tflite_quantization.check_tensor_quantization` requires (as many zero points as
    scales, ``quantized_dimension`` an axis, several scales only along it); its values are then
    queued for :func:`_values_hold` to check every tensor's at once: two runs of the data part
    (per-channel parameters: their offsets, counts and limits into ``runs``), else the values
    themselves (into ``inline``: scales, zero points, and per zero point its limits). False:
    that function checks it, one tensor at a time."""
    scales, n, rank, axis = q.scale, len(q.scale), len(shape), q.quantized_dimension
    if len(q.zero_point) != n or not 0 <= axis < max(rank, 1) or (n > 1 and (rank == 0 or n != shape[axis])):
        return False
    if type(scales_at) is dict:  # a run ({"f8": [offset, count]}: numbers() checked it lies in the data)
        run, zero_run = scales_at.get("f8"), zero_points_at.get("i8") if type(zero_points_at) is dict else None
        if run is None or zero_run is None:
            return False
        runs.append((run[0], run[1], zero_run[0], zero_run[1], limits[0], limits[1]))
    else:
        inline[0].extend(scales)
        inline[1].extend(q.zero_point)
        inline[2].extend((limits,) * n)
    return True


def _values_hold(runs: List[Tuple[int, int, int, int, int, int]], inline: Tuple[list, list, list],
                 data: Union[bytes, memoryview]) -> bool:
    """Whether every queued scale (:func:`_queue_values`) is finite and > 0 and every zero
    point in its dtype's range: the runs in one numpy pass over the file's own bytes
    (:func:`_check_runs`), the inline values in another (any value numpy cannot hold: False,
    the caller checks tensor by tensor)."""
    if runs and not _check_runs(runs, data):
        return False
    if not inline[0]:
        return True
    try:
        scales, zero_points = np.array(inline[0], np.float64), np.array(inline[1], np.int64)
        limits = np.array(inline[2], np.int64).reshape(-1, 2)
    except (OverflowError, TypeError, ValueError):
        return False
    return values_hold(scales, zero_points, limits[:, 0], limits[:, 1])


def _check_runs(runs: List[Tuple[int, int, int, int, int, int]], data: Union[bytes, memoryview]) -> bool:
    """Whether every scale of ``runs`` is finite and > 0 and every zero point in its dtype's
    range: one numpy pass over the file's own bytes (the runs gathered by index from one view of
    the data part where they lie on 8-byte boundaries, as this cache writes them; else run by
    run)."""
    cols = np.array(runs, np.int64).reshape(-1, 6)
    at, count, zat, zcount, lo, hi = cols.T
    if not (all_true(at % 8 == 0) and all_true(zat % 8 == 0)):
        scales = np.concatenate([np.frombuffer(data, "<f8", count=c, offset=a) for a, c, *_ in runs])
        zero_points = np.concatenate([np.frombuffer(data, "<i8", count=c, offset=a) for _, _, a, c, _, _ in runs])
    else:
        words = len(data) // 8
        scales = np.frombuffer(data, "<f8", count=words)[_gather(at // 8, count)]
        zero_points = np.frombuffer(data, "<i8", count=words)[_gather(zat // 8, zcount)]
    return values_hold(scales, zero_points, np.repeat(lo, zcount), np.repeat(hi, zcount))


def _gather(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The indices of runs ``counts`` long from ``starts``, one after the other (each run's
    first place in the result summed in Python: no numpy reduction, whose first call in a
    process costs a second start 4-5 ms under emulation, and nothing else in it makes one)."""
    c = counts.tolist()
    before = np.array([0, *itertools.accumulate(c)][:-1], np.int64)
    return np.repeat(starts - before, counts) + np.arange(sum(c))


def decode_tensors(columns: Dict[str, Any], data: Union[bytes, memoryview],
                   memo: Optional[Dict[tuple, tuple]] = None,
                   arrays: Optional[Dict[int, np.ndarray]] = None) -> Tuple[TensorSpec, ...]:
    """The inverse of :func:`encode_tensors`: constants as read-only views of ``data``; any
    malformed value raises (the caller rejects the file). ``memo``: :func:`numbers`';
    ``arrays``: filled by :func:`_run`."""
    arrays = {} if arrays is None else arrays
    # (stored, the machine's own, the file's little-endian) per dtype: a model has a few
    dtypes = []
    for code in columns["dtype_table"]:
        stored = np.dtype(str(code))
        if stored.itemsize == 0 or stored.kind not in "biuf":
            raise ValueError(f"dtype {stored.str!r}, expected a number type")
        dtypes.append((stored, np.dtype(stored.name), stored.newbyteorder("<")))
    names, shapes, kinds, where, quants = (columns[c] for c in ("names", "shapes", "dtypes", "data", "quantization"))
    if not len(names) == len(shapes) == len(kinds) == len(where) == len(quants):
        raise ValueError("the tensors' columns differ in length")
    out = []
    runs: List[Tuple[int, int, int, int, int, int]] = []  # per-channel parameters, checked at once at the end
    inline: Tuple[list, list, list] = ([], [], [])  # the other integer tensors' values, likewise
    queued: List[tuple] = []
    for index, (name, shape, kind, at, q) in enumerate(zip(names, shapes, kinds, where, quants)):
        shape = tuple(shape)
        if not all(type(n) is int and n >= 0 for n in shape) or type(name) is not str or type(kind) is not int:
            raise ValueError(f"tensor #{index}: name {name!r}, shape {shape} or dtype {kind!r} of another type")
        if len(shape) > MAX_RANK or math.prod(shape) > MAX_ELEMENTS:  # the reader's own limits
            raise ValueError(f"tensor #{index}: shape {list(shape)}, expected at most {MAX_RANK} sizes and "
                             f"{MAX_ELEMENTS} elements")
        if not 0 <= kind < len(dtypes):
            raise ValueError(f"tensor #{index}: dtype {kind} of a table of {len(dtypes)}")
        stored, dtype, in_file = dtypes[kind]
        quant = None
        if q is not None:
            scales, zero_points = _run(q[0], data, memo, "f8", float, arrays), _run(q[1], data, memo, "i8", int, arrays)
            quant = Quantization(scales, zero_points, int(q[2]))
            limits = STORAGE_RANGES.get(dtype)  # (float tensors' parameters are not checked)
            if limits is not None:
                if _queue_values(shape, quant, q[0], q[1], limits, runs, inline):
                    queued.append((index, shape, dtype, quant))
                else:
                    check_tensor_quantization(f"tensor #{index}", shape, dtype, quant)
        try:
            value = None if at is None else array_at(data, at, dtype, shape, in_file)
        except ValueError as e:
            raise ValueError(f"tensor #{index}: {e}") from None
        out.append(TensorSpec(index, name, shape, dtype, value, quant))
    if queued and not _values_hold(runs, inline, data):
        for index, shape, dtype, quant in queued:  # the reader's own check names what fails
            check_tensor_quantization(f"tensor #{index}", shape, dtype, quant)
    return tuple(out)


def encode(spec: ModelSpec, key: Dict[str, object]) -> bytes:
    """The cache file of ``spec`` under ``key``."""
    data = _Data()
    graph = {"key": key, **encode_spec(spec, data)}
    return data.sealed(MAGIC, graph)


def encode_spec(spec: ModelSpec, data: _Data) -> Dict[str, object]:
    """A ModelSpec as plain values, its constants' bytes added to ``data``."""
    return {
        "version": spec.version, "description": spec.description, "tensors": encode_tensors(spec.tensors, data),
        # an operator's intermediates (the integer LSTM's) only where it has some: other files unchanged
        "operators": [[op.index, op.opcode, list(op.inputs), list(op.outputs), [list(kv) for kv in op.options]]
                      + ([list(op.intermediates)] if op.intermediates else []) for op in spec.operators],
        "inputs": list(spec.inputs), "outputs": list(spec.outputs), "md5": spec.md5,
    }


def decode_spec(graph: Dict[str, Any], data: Union[bytes, memoryview],
                memo: Optional[Dict[tuple, tuple]] = None) -> ModelSpec:
    """The inverse of :func:`encode_spec` (any malformed value raises), with the reader's checks
    of a model file: tensor ranks, sizes and quantization (:func:`decode_tensors`), every
    tensor index inside the graph, and the operators' quantization contracts
    (:func:`~.tflite_quantization.check_quantization`). ``memo``: :func:`numbers`'."""
    arrays: Dict[int, np.ndarray] = {}  # numpy views of the quantization runs, for check_quantization
    tensors = decode_tensors(graph["tensors"], data, memo, arrays)
    operators = tuple(OperatorSpec(int(i), str(code), tuple(ins), tuple(outs), tuple((str(k), v) for k, v in opts),
                                   tuple(kept[0]) if kept else ())
                      for i, code, ins, outs, opts, *kept in graph["operators"])
    spec = ModelSpec(int(graph["version"]), str(graph["description"]), tensors, operators,
                     tuple(graph["inputs"]), tuple(graph["outputs"]), str(graph["md5"]))
    n = len(tensors)
    lists = [("inputs", spec.inputs, 0), ("outputs", spec.outputs, 0)]
    for k, op in enumerate(operators):  # an operator's absent optional input is -1
        lists += [(f"operator #{k} {op.opcode} inputs", op.inputs, -1),
                  (f"operator #{k} {op.opcode} outputs", op.outputs, 0),
                  (f"operator #{k} {op.opcode} intermediates", op.intermediates, 0)]
    for where, indices, lowest in lists:
        bad = [i for i in indices if type(i) is not int or not lowest <= i < n]
        if bad:
            raise ValueError(f"{where}: tensor indices {bad}, expected indices of the {n} tensors")
    check_quantization(spec, arrays)
    return spec


def unseal_file(magic: bytes, blob: Union[bytes, memoryview], key: Dict[str, object], what: str
                ) -> Tuple[Dict[str, Any], Union[bytes, memoryview]]:
    """(the JSON head, the data part) of a cache file under ``key``, or CacheFileRejected."""
    header, data = unseal(magic, FORMAT_VERSION, blob, what)
    try:
        head = json.loads(bytes(header))
    except ValueError as e:
        raise CacheFileRejected(f"header is not JSON: {e}") from None
    if not isinstance(head, dict) or head.get("key") != key:
        raise CacheFileRejected(f"the file is for {head.get('key') if isinstance(head, dict) else head!r}, "
                                f"not {key}")
    return head, data


def decode(blob: Union[bytes, memoryview], key: Dict[str, object]) -> ModelSpec:
    """The ModelSpec in a cache file, or CacheFileRejected saying why not (checked: the seal,
    the key, every tensor's data inside the file and as large as its shape)."""
    graph, data = unseal_file(MAGIC, blob, key, "a parsed-model cache file")
    try:
        return decode_spec(graph, data)
    except Exception as e:  # any shape of damage (a wrong type, a refused value) is a rejection
        raise CacheFileRejected(f"graph does not parse: {type(e).__name__}: {e}") from None


# ---------------------------------------------------------------------------- reading
def read_model_cached(source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
                      cache: Union[bool, str, "os.PathLike[str]"] = True, *,
                      dequantized: bool = False, keep: bool = True, model_md5: Optional[str] = None
                      ) -> Tuple[ModelSpec, ModelCacheReport]:
    """``read_model(source)`` and what the cache did: from the cache file when one holds this
    model (warm), else read from the model and saved (cold). ``cache``: True (the default
    directory), False (off: exactly read_model), or a directory. ``dequantized``: the model with
    its constant DEQUANTIZEs folded (:func:`.tflite_reader.fold_constant_dequantize`, as the
    runner lowers it), kept as a file of its own with the float32 values in it (a second start
    converts no float16 weights: 5-15 ms of the face detectors' start under emulation).
    ``keep``: False where the caller keeps the model in a file of its own (the runners' lowered
    plan holds it: :mod:`..planning.plan_cache`), so a miss is read and not encoded and written
    a second time; a kept file is still read. ``model_md5``: :func:`model_hash` of the model's
    bytes where the caller has it (the plan cache's key: a large file is not hashed twice).
    Errors of the model itself are read_model's; the cache never raises (warnings)."""
    t0 = time.perf_counter()
    for name, flag in (("dequantized", dequantized), ("keep", keep)):
        if not isinstance(flag, bool):
            raise ArgumentTypeError(f"{name} is {flag!r}, expected True or False")

    def parse(data, md5: Optional[str] = None) -> ModelSpec:
        spec = read_model(data, md5=md5)
        return fold_constant_dequantize(spec) if dequantized else spec

    if cache is False:
        return parse(source), ModelCacheReport("off", None, "model_cache=False")
    check_cache_option("model_cache", cache)
    data = model_bytes(source)
    directory = cache_dir() if cache is True else Path(cache)
    try:
        md5 = model_hash(data) if model_md5 is None else model_md5
        key = _key(md5)
    except OSError as e:  # the reader's sources are not readable: no identity, no cache
        return parse(data), ModelCacheReport("off", None, f"reader sources unreadable: {e}")
    if dequantized:
        key["dequantized"] = True
    path = directory / file_name(key)
    reason = "no cache file"
    try:
        blob = read_aligned(path)
    except FileNotFoundError:
        pass
    except (OSError, MemoryError) as e:  # CacheNotTrusted included
        reason = f"cannot read {path}: {e}"
        warnings.warn(ModelCacheWarning(reason), stacklevel=2)
    else:
        try:
            spec = decode(blob, key)
        except Exception as e:  # whatever a damaged or crafted file makes the decoder raise: a cold start
            reason = f"{path} ignored: {_why(e)}"
            warnings.warn(ModelCacheWarning(reason), stacklevel=2)
        else:
            return spec, ModelCacheReport("warm", str(path), "", time.perf_counter() - t0)
    spec = parse(data, md5)  # the key's hash is the spec's identity: the file hashed once
    if not keep:
        return spec, ModelCacheReport("cold", None, f"{reason}; not saved: the lowered plan keeps it",
                                      time.perf_counter() - t0)
    try:
        write_atomically(path, encode(spec, key))
        reason += "; saved"
    except OSError as e:
        reason += f"; not saved: {e}"
        warnings.warn(ModelCacheWarning(f"cannot write the parsed-model cache {path}: {e}"), stacklevel=2)
    return spec, ModelCacheReport("cold", str(path), reason, time.perf_counter() - t0)


def _why(e: Exception) -> str:
    """A decoder's failure as a warning's text (the type named where it is not a rejection)."""
    return str(e) if isinstance(e, CacheFileRejected) else f"{type(e).__name__}: {e}"


def read_aligned(path: Path) -> memoryview:
    """The cache file's bytes, read-only, in memory that starts 64-byte aligned, so that the
    constants, 64-byte aligned in the file, are aligned in memory too
    (:func:`acl_bridge.user_cache.read_trusted`: CacheNotTrusted, an OSError, for a file or
    folder that is not this user's alone, not a regular file or too big)."""
    return read_trusted(path, MAX_CACHE_FILE_BYTES, alignment_in_bytes=_ALIGNMENT_IN_BYTES)


__all__ = ["read_model_cached", "ModelCacheReport", "ModelCacheWarning", "cache_dir", "encode", "decode"]
