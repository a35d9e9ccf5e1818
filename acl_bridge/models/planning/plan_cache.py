"""Lowered plans kept between processes: a second start neither parses nor lowers.

The runner turns a .tflite file into a :class:`~.tflite_plan.Plan` in two steps: reading
(:mod:`.model_cache` keeps the parsed model) and lowering (:func:`~.tflite_plan.plan_model`,
the constant DEQUANTIZEs folded first). The plan depends only on the file's bytes and on the
code that reads and lowers, so :class:`PlanCache` keeps it in a file of its own beside the
parsed models, and the next start reads the plan whole:

* one file per key: the model's MD5 (:func:`.model_cache.model_hash`), this format's version,
  the package version, stamps of the reading and lowering sources
  (:func:`lowering_code_identity`) and of this codec's own, and the ``tflite`` package's
  version;
* the file is sealed as the parsed-model cache's are (:func:`.model_cache.unseal_file`): the
  plan as JSON (its model's tensors as columns, its steps with their parameters, views,
  fusions and folds), then the constants' bytes, 64-byte aligned. A step's constant that is a
  model tensor's value (or a reshape of it: weights as stored) is kept as a reference to that
  tensor, one the lowering made (a bias of zeros) as bytes of its own. Nothing in it is
  executed or unpickled;
* a plan is saved only when every value has a plain form and the file's JSON head parses
  back equal to what was written (a parameter JSON cannot give back, such as a numpy scalar,
  a tuple where a list is written or a NaN, means the plan is lowered at every start
  instead); the constants' bytes, dtypes and shapes are copied as they are, and that the
  decoder gives back the plan lowered is shown on every fetched model by the tests, not by
  decoding each plan again at save (a first start decodes nothing); a file that does not
  parse, fails its checksum or is for another key is a
  :class:`~.model_cache.ModelCacheWarning` and a cold start, never an exception.

Measurements: docs/performance.md, "Start-up".
"""

from __future__ import annotations

import functools
import json
import os
import time
import warnings
from pathlib import Path
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from ..._version import __version__
from ...user_cache import SEAL, CacheFileRejected, sources_stamp, write_atomically
from ..lowering import Step
from ..format.model_cache import (_INLINE_NUMBERS, ModelCacheReport, ModelCacheWarning, _Data, _tflite_version, array_at, cache_dir, decode_spec,
                          encode_spec, file_name, model_hash, numbers, read_aligned, unseal_file, _why)
from ..format.tflite_reader import model_bytes
from .tflite_plan import Fallback, Plan, View

MAGIC = b"ACLNDPL\x00"
FORMAT = "lowered plan 2"  # part of the key; 2: the fallback operators of a partitioned plan (the seal's version is the parsed-model cache's)
SUFFIX = ".aclplan"

_HERE = Path(__file__).resolve().parent
_MODELS = _HERE.parent
# the code that turns a file into a Plan: reading (with the parsed-model cache's own key), the
# constant-dequantize fold, the lowering rules and the plan
_LOWERING_SOURCES = ((_MODELS / "format", ("tflite_reader.py", "flatbuffer_tables.py", "tflite_schema.py",
                                           "sparsity.py", "tflite_quantization.py")),
                     (_HERE, ("tflite_plan.py", "constant_folding.py")),
                     (_MODELS / "lowering", tuple(sorted(p.name for p in (_MODELS / "lowering").glob("*.py")))),
                     # the rules, one module per family
                     (_MODELS / "lowering" / "rules",
                      tuple(sorted(p.name for p in (_MODELS / "lowering" / "rules").glob("*.py")))),
                     # the fallback's kernels say which operators it takes (fallback.unsupported): the partition
                     (_MODELS / "fallback", tuple(sorted(p.name for p in (_MODELS / "fallback").glob("*.py")))))


@functools.lru_cache(maxsize=None)
def lowering_code_identity() -> str:
    """A stamp of :data:`_LOWERING_SOURCES` (user_cache.sources_stamp), made once per process
    (OSError when unreadable)."""
    return "".join(sources_stamp(d, names)[:16] for d, names in _LOWERING_SOURCES)


@functools.lru_cache(maxsize=None)
def _codec_identity() -> str:
    """A stamp of this file format's own code (this module and the parsed-model cache's, whose
    tensor codec it uses): a changed codec never reads an old file."""
    return sources_stamp(_HERE, ("plan_cache.py",))[:16] + sources_stamp(_MODELS / "format", ("model_cache.py",))[:16]


# ---------------------------------------------------------------------------- the format (pure)
def _plain(v: Any, data: _Data) -> Any:
    """A step parameter's value as JSON: tuples as lists, long runs of floats or ints in the data
    part (:meth:`.model_cache._Data.numbers`: int8 models carry per-channel scales here);
    TypeError for a value JSON has no form for."""
    if type(v) is tuple:
        if len(v) > _INLINE_NUMBERS:
            packed = data.numbers(v)
            if type(packed) is dict:
                return packed
        return [x if type(x) in _SCALARS else _plain(x, data) for x in v]  # (no call per scalar)
    if type(v) in _SCALARS:
        return v
    raise TypeError(f"a step parameter holds a {type(v).__name__} ({v!r}), which has no plain-value form")


_SCALARS = frozenset((bool, int, float, str, type(None)))


def _tuples(v: Any, data: Union[bytes, memoryview], memo: Dict[tuple, tuple]) -> Any:
    """The inverse of :func:`_plain`: JSON's lists back to the tuples a plan is made of (a run of
    numbers read once per file: ``memo``)."""
    t = type(v)
    if t is list:  # (a scalar is itself: no call per leaf)
        return tuple([_tuples(x, data, memo) if type(x) in _NESTED else x for x in v])
    if t is dict:
        return numbers(v, data, memo)
    return v


_NESTED = (list, dict)


def encode(plan: Plan, key: Dict[str, object]) -> bytes:
    """The cache file of ``plan`` under ``key`` (TypeError/ValueError for a plan that has no
    plain-value form)."""
    return _encoded(plan, key)[0]


def _encoded(plan: Plan, key: Dict[str, object]) -> Tuple[bytes, Dict[str, object]]:
    """(:func:`encode`'s file, the JSON head written in it)."""
    data = _Data()
    model = encode_spec(plan.model, data)
    owners = {t.data.__array_interface__["data"][0]: t for t in plan.model.tensors
              if t.data is not None and t.data.size}
    steps = []
    for s in plan.steps:
        constants = []
        for role, value in s.constants:
            owner = owners.get(value.__array_interface__["data"][0]) if value.size else None
            if (owner is not None and owner.data.dtype == value.dtype and owner.data.nbytes == value.nbytes
                    and value.flags.c_contiguous):  # the model's own value, as stored or reshaped
                constants.append([role, owner.index, list(value.shape)])
            else:  # made by the lowering: bytes of its own
                constants.append([role, value.dtype.str, list(value.shape), data.add_array(value)])
        steps.append([s.op_index, s.opcode, s.kind, list(s.inputs), s.output, _plain(s.params, data), constants])
    head = {"key": key, "model": model, "steps": steps,
            "views": [[v.tensor, v.parent, list(v.how)] for v in plan.views], "fused": list(plan.fused),
            "padding_kept": list(plan.padding_kept), "folded_pads": [list(p) for p in plan.folded_pads],
            "fallbacks": [[f.op_index, f.opcode, list(f.inputs), list(f.outputs), f.kind, f.reason]
                          for f in plan.fallbacks]}
    return data.sealed(MAGIC, head), head


def _head_reads_back(blob: bytes, head: Dict[str, object]) -> bool:
    """Whether the JSON head sealed in ``blob`` parses back equal to ``head``, what
    :func:`_encoded` wrote (a NaN parameter does not: it equals nothing, itself included)."""
    start = len(MAGIC) + SEAL.size
    _, head_len, _, _ = SEAL.unpack_from(blob, len(MAGIC))
    return bool(json.loads(blob[start:start + head_len]) == head)


def decode(blob: Union[bytes, memoryview], key: Dict[str, object]) -> Plan:
    """The Plan in a cache file, or CacheFileRejected saying why not."""
    head, data = unseal_file(MAGIC, blob, key, "a lowered-plan cache file")
    try:
        memo: Dict[tuple, tuple] = {}
        model = decode_spec(head["model"], data, memo)
        tensors = model.tensors
        n = len(tensors)
        steps = []
        for op_index, opcode, kind, inputs, output, params, constants in head["steps"]:
            values = []
            for c in constants:
                if len(c) == 3:  # a model tensor's value
                    role, index, shape = c
                    _check_index(index, n, "a constant's tensor")
                    value = tensors[index].data.reshape(tuple(shape))
                else:
                    role, code, shape, at = c
                    value = array_at(data, at, np.dtype(str(code)), tuple(shape))
                values.append((str(role), value))
            for i in inputs:
                _check_index(i, n, "a step's input")
            _check_index(output, n, "a step's output", least=-1)
            steps.append(Step(int(op_index), str(opcode), str(kind), tuple(inputs), int(output),
                              _tuples(params, data, memo), tuple(values)))
        views = []
        for t, p, how in head["views"]:
            _check_index(t, n, "a view's tensor")
            _check_index(p, n, "a view's parent")
            views.append(View(t, p, _tuples(how, data, memo)))
        fallbacks = []
        for op_index, opcode, inputs, outputs, kind, reason in head["fallbacks"]:
            for i in inputs:
                _check_index(i, n, "a fallback operator's input", least=-1)
            for i in outputs:
                _check_index(i, n, "a fallback operator's output")
            fallbacks.append(Fallback(int(op_index), str(opcode), tuple(inputs), tuple(outputs), str(kind), str(reason)))
        return Plan(model, tuple(steps), tuple(views), tuple(head["fused"]), tuple(head["padding_kept"]),
                    _tuples(head["folded_pads"], data, memo), tuple(fallbacks))
    except Exception as e:  # any shape of damage (a wrong type, a refused value) is a rejection
        raise CacheFileRejected(f"plan does not parse: {type(e).__name__}: {e}") from None


def _check_index(i: object, n: int, what: str, least: int = 0) -> None:
    """ValueError unless ``i`` is an int in [least, n) (no negative index naming another tensor)."""
    if type(i) is not int or not least <= i < n:
        raise ValueError(f"{what} is {i!r}, expected {least} to {n - 1}")


def same_plan(a: Plan, b: Plan) -> bool:
    """Whether two plans are equal in every field, constants byte by byte (what the cache gives
    back must be exactly what was lowered)."""
    def tensor(t) -> tuple:
        data = None if t.data is None else (t.data.dtype.str, t.data.shape, t.data.tobytes())
        return t.index, t.name, tuple(t.shape), t.dtype.str, t.quantization, data

    def step(s: Step) -> tuple:
        return (s.op_index, s.opcode, s.kind, s.inputs, s.output, s.params,
                tuple((r, v.dtype.str, v.shape, v.tobytes()) for r, v in s.constants))

    ma, mb = a.model, b.model
    return ((ma.version, ma.description, ma.operators, ma.inputs, ma.outputs, ma.md5)
            == (mb.version, mb.description, mb.operators, mb.inputs, mb.outputs, mb.md5)
            and list(map(tensor, ma.tensors)) == list(map(tensor, mb.tensors))
            and list(map(step, a.steps)) == list(map(step, b.steps))
            and (a.views, a.fused, a.padding_kept, a.folded_pads, a.fallbacks)
            == (b.views, b.fused, b.padding_kept, b.folded_pads, b.fallbacks))


# ---------------------------------------------------------------------------- the file
class PlanCache:
    """The kept plan of one model file: :meth:`load` reads it (None when there is none),
    :meth:`save` keeps one lowered after a cold load. ``directory``: None for the parsed-model
    cache's own (:func:`.model_cache.cache_dir`); ``model_md5``: the file's hash where the
    caller has it already (:func:`.model_cache.model_hash` of ``data``)."""

    def __init__(self, data: bytes, directory: Union[None, str, "os.PathLike[str]"] = None,
                 model_md5: Optional[str] = None):
        self.directory = Path(directory) if directory is not None else cache_dir()
        md5 = model_hash(data) if model_md5 is None else model_md5
        self.key: Dict[str, object] = {"format": FORMAT, "model_md5": md5, "package": __version__,
                                       "lowering": lowering_code_identity(), "codec": _codec_identity(),
                                       "tflite": _tflite_version()}
        self.path = self.directory / file_name(self.key, SUFFIX)
        self.reason = ""

    def load(self) -> Optional[Plan]:
        """The kept plan, or None (:attr:`reason` says why; a damaged file is a warning)."""
        try:
            blob = read_aligned(self.path)
        except FileNotFoundError:
            self.reason = "no lowered plan kept"
            return None
        except (OSError, MemoryError) as e:  # CacheNotTrusted included
            return self._cold(f"cannot read {self.path}: {e}")
        try:
            return decode(blob, self.key)
        except Exception as e:  # whatever a damaged or crafted file makes the decoder raise: a cold start
            return self._cold(f"{self.path} ignored: {_why(e)}")

    def _cold(self, reason: str) -> None:
        self.reason = reason
        warnings.warn(ModelCacheWarning(reason), stacklevel=3)
        return None

    def save(self, plan: Plan) -> str:
        """Keep ``plan`` when its file's JSON head reads back as itself (the module's text:
        the plan is not decoded again); what happened, as text (never raises: a directory
        that cannot be written is a warning)."""
        why, problems = self.keep(plan)
        for w in problems:
            warnings.warn(w, stacklevel=2)
        return why

    def keep(self, plan: Plan) -> Tuple[str, Tuple[ModelCacheWarning, ...]]:
        """:meth:`save` with its warning returned instead of issued, (what happened, the
        warnings): a job for :mod:`acl_bridge.keep_writer`, on any thread."""
        try:
            blob, head = _encoded(plan, self.key)
        except (TypeError, ValueError) as e:
            return f"plan not kept: it has no plain-value form ({type(e).__name__}: {e})", ()
        if not _head_reads_back(blob, head):
            return "plan not kept: it does not read back as itself", ()
        try:
            write_atomically(self.path, blob)
        except OSError as e:
            return f"plan not kept: {e}", (ModelCacheWarning(f"cannot write the lowered-plan cache {self.path}: {e}"),)
        return "plan kept", ()


def read_plan_cached(source: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
                     cache: Union[bool, str, "os.PathLike[str]"] = True, model_md5: Optional[str] = None
                     ) -> Tuple[Optional[Plan], Optional[PlanCache], bytes, float]:
    """(the kept plan of the model ``source`` (a file or its bytes) or None, the cache (None:
    off), the model's bytes, seconds taken). A miss is for the caller to lower and
    :meth:`PlanCache.save`. ``model_md5``: the bytes' hash where the caller has it."""
    t0 = time.perf_counter()
    data = model_bytes(source)
    if cache is False:
        return None, None, data, time.perf_counter() - t0
    try:
        kept = PlanCache(data, None if cache is True else cache, model_md5)
    except OSError:  # the lowering's sources are not readable: nothing to key a plan by
        return None, None, data, time.perf_counter() - t0
    return kept.load(), kept, data, time.perf_counter() - t0


def kept_report(kept: PlanCache, seconds: float) -> ModelCacheReport:
    """What the runner reports for a start that read its plan from ``kept``."""
    return ModelCacheReport("warm", str(kept.path), "lowered plan kept", seconds)


__all__ = ["PlanCache", "read_plan_cached", "kept_report", "lowering_code_identity", "encode", "decode", "same_plan"]
