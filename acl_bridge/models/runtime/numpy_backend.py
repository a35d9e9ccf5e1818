"""The runner on numpy: ``TfliteRunner(model, backend="numpy")`` on any machine.

:class:`NumpyRunner` is what :class:`~.tflite_runner.TfliteRunner` makes for
``backend="numpy"`` (and for ``"auto"`` where ACL's NEON functions do not load:
:func:`resolve_backend`). It reads and lowers the model as the ACL runner does (the same
caches, the same plan, the same fallback operators) and keeps one buffer per owning tensor
for its life, views bound by the plan as on ACL; an inference runs every step on its kind's
numpy kernel (:mod:`..fallback.step_kernels`) and every fallback operator on the fallback's
kernels, in the plan's order, over those buffers. ``run()``, ``outputs()``,
``input_arrays``, ``arrays`` and ``padded_buffers()`` are the ACL runner's (inherited):
scripts written on x86 run on the board unchanged. What reports ACL itself (the operator and
configure profiles, the memory report) is refused, naming the backend.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np

from ndarray import NdArray
from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

from ...backend import Backend
from ...mapping import PaddingSize
from .boundary_memory import interpreter_arrays, interpreter_memory
from ..fallback.tflite_segments import FallbackSegment, SegmentBinder, SegmentEngine, check_engine, describe
from ..fallback.step_kernels import run_step
from ..format.model_cache import read_model_cached
from ..format.tflite_reader import ModelSpec, UnsupportedModelError, fold_constant_dequantize, model_bytes
from ..planning.plan_cache import kept_report, read_plan_cached
from ..planning.tflite_plan import Plan, plan_model
from .buffers import BufferPlan
from .tflite_runner import TfliteRunner

BACKENDS = ("auto", "neon", "cl", "numpy")
NUMPY = Backend("numpy", -1)  # no native code: never marks a native description


def resolve_backend(name) -> str:
    """``name`` as the runner takes it (``"neon"``, ``"cl"``, ``"numpy"``, or a Backend's
    name); ``"auto"`` becomes ``"neon"`` where the native module loads with ACL's NEON
    functions and ``"numpy"`` elsewhere. Anything else is refused naming the choices."""
    if isinstance(name, Backend):
        return name.name
    if name == "auto":
        from ...native import native_available, require_native

        ok, _ = native_available()
        return "neon" if ok and require_native()[1].acl_shim_neon_available() else "numpy"
    if name in BACKENDS:
        return name
    raise UnsupportedOptionError(f"backend is {name!r}, expected one of {list(BACKENDS)}")


def source_of(model):
    """The function reading ``model``'s file bytes (a path or the bytes), or None for a plan or
    spec (the sub-interpreter of :mod:`..fallback.tflite_segments` cuts segments from the file)."""
    if isinstance(model, (Plan, ModelSpec)):
        return None
    return lambda: model_bytes(model)


class NumpySchedule:
    """The plan's steps and fallback operators bound once to numpy views of the runner's
    buffers; :meth:`run` runs them in order (the ACL runner's ``Schedule`` in its place)."""

    native_calls_per_run = 0
    copied_bytes_per_run = 0

    def __init__(self, plan: Plan, arrays: Dict[int, NdArray], binder: Optional[SegmentBinder] = None):
        views: Dict[int, np.ndarray] = {t: a.numpy() for t, a in arrays.items()}
        views.update((c.index, c.data) for c in plan.model.tensors if c.is_constant)  # operands of copies
        binder = binder if binder is not None else SegmentBinder("numpy", None)
        order = plan.order()
        calls: List[Callable[[], None]] = []
        self.fallback_engines: List[SegmentEngine] = []
        self._segments: List[FallbackSegment] = []
        k = 0
        for side, ks in plan.segments():  # a fallback segment bound whole (numpy kernels or TFLite's interpreter)
            if side == "acl":
                calls += [functools.partial(run_step, s, views) for s in order[k:k + len(ks)]]
            else:
                bound = binder.bind(plan.model, [f.op_index for f in order[k:k + len(ks)]], views)  # type: ignore[union-attr]
                self.fallback_engines.append(bound.report)
                self.copied_bytes_per_run += bound.copied_bytes_per_run
                calls.append(bound.run)  # (an in-place segment's: the interpreter's native invoke)
                self._segments.append(bound)  # (held: it holds the interpreter, whose model bytes its run reads)
            k += len(ks)
        self._calls: Tuple[Callable[[], None], ...] = tuple(calls)
        sides = [side for side, _ in plan.segments()]
        self.segment_count = (sides.count("acl"), sides.count("fallback"))

    def run(self) -> "NumpySchedule":
        for call in self._calls:
            call()
        return self


def _plan_of(model, model_cache, fallback: bool):
    """(the plan, what the parsed-model / plan cache did or None) for ``model``: a Plan, a
    ModelSpec, a file or its bytes (read and lowered as the ACL runner does, caches included)."""
    if isinstance(model, Plan):
        return model, None
    if isinstance(model, ModelSpec):
        return plan_model(fold_constant_dequantize(model), fallback=fallback), None
    kept, plans, data, seconds = read_plan_cached(model, model_cache)
    if kept is not None:
        return kept, kept_report(plans, seconds)  # type: ignore[arg-type]
    spec, report = read_model_cached(data, model_cache, dequantized=True, keep=plans is None,
                                     model_md5=None if plans is None else plans.key["model_md5"])  # type: ignore[arg-type]
    plan = plan_model(spec, fallback=fallback)
    if plans is not None:  # what the runner's report says too
        report = dataclasses.replace(report, reason=f"{report.reason}; {plans.save(plan)}")
    return plan, report


class NumpyRunner(TfliteRunner):
    """A TFLite model's plan on numpy kernels, with the ACL runner's surface. The ACL options
    (``allow_copy``, ``arena``, ``program_cache``, ...) are accepted and have nothing to do
    here, so one call works on every backend."""

    def __new__(cls, *args, **kwargs):
        return object.__new__(cls)

    def __init__(self, model, *, backend="numpy", fallback: bool = True, model_cache=True,
                 fallback_engine: str = "auto", **acl_options):
        if resolve_backend(backend) != "numpy":
            raise UnsupportedOptionError(f"backend is {backend!r}: NumpyRunner runs backend='numpy' only")
        unknown = sorted(set(acl_options) - _ACL_OPTIONS)
        if unknown:
            raise ArgumentTypeError(f"TfliteRunner got unexpected keyword argument(s) {unknown}")
        if not isinstance(fallback, bool):
            raise ArgumentTypeError(f"fallback is {fallback!r}, expected True or False")
        self.backend = NUMPY
        self.fallback = fallback
        self.fallback_engine = check_engine(fallback_engine)
        self.acl_refused: Dict[int, str] = {}
        self.functions: List[object] = []
        self.workspaces: List[object] = []
        self.renegotiations = 0
        self.program_cache = self.facts_cache = None
        self.memory = None
        self._first_run_seconds: Optional[float] = None
        t0 = time.perf_counter()
        plan, self.model_cache = _plan_of(model, model_cache, fallback)
        if plan.fallbacks and not fallback:
            raise UnsupportedModelError(plan.fallbacks[0].reason + (
                "" if len(plan.fallbacks) == 1 else f" (and {len(plan.fallbacks) - 1} more operators that do not lower)"))
        self.plan = plan
        t = plan.model.tensors
        self.buffer_plans: Dict[int, BufferPlan] = {
            b: BufferPlan(b, t[b].name, tuple(t[b].shape), PaddingSize(), (), False) for b in plan.buffers()}
        binder = SegmentBinder(fallback_engine, source_of(model))
        # a boundary tensor of a segment on TFLite's interpreter lives in its memory (nothing copied)
        owned = interpreter_arrays(plan, interpreter_memory(plan, binder))
        owned.update((b, NdArray.zeros(t[b].shape, t[b].dtype)) for b in plan.buffers() if b not in owned)
        self.arrays: Dict[int, NdArray] = plan.bind(owned)
        self.schedule = NumpySchedule(plan, self.arrays, binder)
        self.configure_seconds = time.perf_counter() - t0
        self.model_name = type(model).__name__ if isinstance(model, (Plan, ModelSpec, bytes, bytearray, memoryview)) \
            else str(model).rsplit("/", 1)[-1]
        self.input_index = plan.model.inputs[0]
        self.input_array: NdArray = self.arrays[self.input_index]
        self.input_arrays: Dict[int, NdArray] = {i: self.arrays[i] for i in plan.model.inputs}
        self.output_names = tuple(t[i].name for i in plan.model.outputs)

    def _acl_only(self, what: str):
        raise UnsupportedOptionError(f"{what} reports how ACL runs the model: this runner's backend is numpy "
                                     f"(backend='neon' or 'cl' on a machine with ACL)")

    def profile(self, rounds: int = 5):
        self._acl_only("profile()")

    def configure_profile(self):
        self._acl_only("configure_profile()")

    def memory_report(self):
        self._acl_only("memory_report()")

    def constants_marked_unused(self):
        self._acl_only("constants_marked_unused()")

    def summary(self) -> str:
        fallback = (f"; {len(self.plan.fallbacks)} operator(s) on the fallback's kernels: "
                    + ", ".join(f"#{f.op_index} {f.opcode} ({f.kind})" for f in self.plan.fallbacks)
                    if self.plan.fallbacks else "")
        return (f"{len(self.plan.model.operators)} operators -> {len(self.plan.steps)} steps on numpy kernels "
                f"({len(self.plan.fused)} activations fused, {len(self.plan.folded_pads)} PADs folded, "
                f"{len(self.plan.views)} views); {len(self.buffer_plans)} buffers, none padded; "
                f"planned in {self.configure_seconds:.2f} s{fallback}{describe(self.schedule.fallback_engines)}")


# the ACL runner's keyword arguments that concern ACL alone (accepted, unused on numpy)
_ACL_OPTIONS = frozenset({"allow_copy", "program_cache", "arena", "reuse_facts", "share_workspaces",
                          "share_constants", "facts_cache", "keep_in_background"})

__all__ = ["NumpyRunner", "NumpySchedule", "resolve_backend", "source_of", "BACKENDS", "NUMPY"]
