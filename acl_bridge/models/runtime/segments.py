"""A partitioned plan on the runner: ACL segments and fallback operators, run in order.

Consecutive ACL steps are one :class:`~acl_bridge.Schedule` each (one native call per
segment, nothing copied inside it, the runner's buffers, arena and workspace shared by all);
the fallback segments between them run over numpy views of the same buffers
(:meth:`NdArray.numpy`: the elements only, the padding around them neither read nor written),
on :mod:`.fallback`'s numpy kernels (nothing copied at a boundary: a kernel reads its inputs
where ACL wrote them and writes its outputs where ACL reads them) or, per ``fallback_engine``,
in TFLite's interpreter on the segment cut from the file (:mod:`..fallback.tflite_segments`:
its inputs and outputs copied at the boundary, except where the buffer is the interpreter's own
tensor: :mod:`.boundary_memory`). :attr:`SegmentedRun.copied_bytes_per_run`
counts what the boundaries copy."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ...schedule import Schedule
from ..fallback.tflite_segments import FallbackSegment, SegmentBinder, SegmentEngine
from ..planning.tflite_plan import Plan


@dataclass(frozen=True)
class SegmentTime:
    """One segment's share of an inference: ``side`` "acl" or "fallback", the operators
    (indices and opcodes) and the mean seconds per run over the rounds."""

    index: int
    side: str
    operators: Tuple[Tuple[int, str], ...]
    seconds: float

    def describe(self) -> str:
        ops = ", ".join(f"#{i} {code}" for i, code in self.operators[:4])
        more = f" (+{len(self.operators) - 4})" if len(self.operators) > 4 else ""
        return f"segment {self.index} {self.side:8s} {len(self.operators):3d} ops {self.seconds * 1e3:9.3f} ms  {ops}{more}"


class SegmentedRun:
    """The runner's schedule for a plan with fallback operators: :meth:`run` runs every
    segment in order; it offers :class:`~acl_bridge.Schedule`'s ``run``, ``profile`` and
    ``native_calls_per_run``, so the runner uses it in the schedule's place."""

    def __init__(self, plan: Plan, functions: Sequence, arrays: Dict[int, object],
                 binder: Optional[SegmentBinder] = None):
        functions = list(functions)  # (a batch of recalled functions makes its objects here)
        binder = binder if binder is not None else SegmentBinder("numpy", None)
        self.fallback_engines: List[SegmentEngine] = []
        views = {t: a.numpy() for t, a in arrays.items()}  # type: ignore[attr-defined]
        copied = 0
        self._segments: List[FallbackSegment] = []
        self._parts: List[Tuple[str, Union[Schedule, Tuple[Callable[[], None], ...]], Tuple[Tuple[int, str], ...],
                                Tuple[int, ...]]] = []
        for side, ks in plan.segments():
            if side == "acl":
                names = tuple((plan.steps[k].op_index, plan.steps[k].opcode) for k in ks)
                self._parts.append((side, Schedule([functions[k] for k in ks]), names, ks))
            else:
                fbs = [plan.fallbacks[k] for k in ks]
                bound = binder.bind(plan.model, [f.op_index for f in fbs], views)
                self.fallback_engines.append(bound.report)
                copied += bound.copied_bytes_per_run
                self._segments.append(bound)  # (held: it holds the interpreter, whose model bytes its run reads)
                # its run itself (an in-place segment's is the interpreter's native invoke), not the segment's __call__
                self._parts.append((side, (bound.run,), tuple((f.op_index, f.opcode) for f in fbs), ks))
        self.copied_bytes_per_run = copied

    @property
    def native_calls_per_run(self) -> int:
        return sum(part.native_calls_per_run for side, part, _, _ in self._parts if side == "acl")  # type: ignore

    @property
    def segment_count(self) -> Tuple[int, int]:
        """(ACL segments, fallback segments)."""
        acl = sum(1 for side, *_ in self._parts if side == "acl")
        return acl, len(self._parts) - acl

    def run(self) -> "SegmentedRun":
        with np.errstate(all="ignore"):  # IEEE: NaN and Inf go through as in TFLite, without warnings (set once)
            for side, part, _, _ in self._parts:
                if side == "acl":
                    part.run()  # type: ignore[union-attr]
                else:
                    for f in part:  # type: ignore[union-attr]
                        f()
        return self

    def profile(self, rounds: int = 5) -> Tuple[Tuple[float, ...], ...]:
        """Per ACL function (in the plan's step order), its seconds in each of ``rounds``
        runs of its segment (:meth:`Schedule.profile`)."""
        out: List[Tuple[float, ...]] = []
        for side, part, _, _ in self._parts:
            if side == "acl":
                out += list(part.profile(rounds))  # type: ignore[union-attr]
        return tuple(out)

    def profile_segments(self, rounds: int = 5) -> Tuple[SegmentTime, ...]:
        """Every segment's mean seconds over ``rounds`` whole inferences, timed around it."""
        total = [0.0] * len(self._parts)
        for _ in range(rounds):
            for k, (side, part, _, _) in enumerate(self._parts):
                t0 = time.perf_counter()
                if side == "acl":
                    part.run()  # type: ignore[union-attr]
                else:
                    for f in part:  # type: ignore[union-attr]
                        f()
                total[k] += time.perf_counter() - t0
        return tuple(SegmentTime(k, side, names, total[k] / max(rounds, 1))
                     for k, (side, _, names, _) in enumerate(self._parts))


__all__ = ["SegmentedRun", "SegmentTime"]
