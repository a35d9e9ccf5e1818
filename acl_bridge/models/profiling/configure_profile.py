"""Where a model's start-up seconds go: :meth:`TfliteRunner.configure_profile`'s record.

A :class:`ConfigureProfile` is frozen: the phases of loading in order (wall-clock seconds,
exclusive, summing to the load), each phase's native calls by category (from
:mod:`acl_bridge.configure_session`: seconds, calls made, answers reused) and the Python
time left around them, the steps that cost most, and the first inference (where ACL
prepares weights) once it has run. :meth:`~ConfigureProfile.text` is the table for people,
:meth:`~ConfigureProfile.as_dict` the JSON of ``run-tflite --profile --json``.

The phases (``TfliteRunner``'s loading, its module docstring):

* ``read``: the file to a plan: on a second start the lowered plan kept by an earlier process
  (:mod:`..planning.plan_cache`), else the ModelSpec from the parsed-model cache or the flatbuffer (the
  ``tflite`` package imported then), the caches saved (absent when the runner was given a spec
  or plan);
* ``lower``: constant folding and lowering to the plan's steps (absent when the plan was kept);
* ``program_cache``: OpenCL start and the program cache restored (CL only);
* ``facts_cache``: ACL's answers of an earlier process read (:mod:`acl_bridge.facts_cache`);
* ``negotiation``: every step asks for its padding (``negotiate``) and checks it with
  validate() on exact layouts (``check_layouts``, ``auto_padding``);
* ``allocate``: buffers and the arena;
* ``configure``: every function made (its own negotiation, the ``probe``, ACL's validate()
  and configure(), native tensors and imports);
* ``renegotiation``: where validate() wanted more padding, allocate and configure again;
* ``schedule``: the one native call per inference;
* ``first_run``: the first inference (ACL prepares weights there), after the load.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ...configure_session import CATEGORIES

if TYPE_CHECKING:
    from ...configure_session import ConfigureSession

PHASES = ("read", "lower", "program_cache", "facts_cache", "negotiation", "allocate", "configure", "renegotiation", "schedule")


@dataclass(frozen=True)
class NativeTime:
    """One category of native calls inside a phase (or a step)."""

    category: str
    seconds: float
    calls: int  # asked of ACL
    reused: int  # answered from the session's memo (0 for configure and import)


@dataclass(frozen=True)
class PhaseTime:
    phase: str
    seconds: float  # wall clock, this phase alone
    native: Tuple[NativeTime, ...] = ()
    # of the native seconds, those that ran on another thread while this one went on (a first
    # start's probes and functions made beside its decision pass: acl_bridge.question_thread,
    # acl_bridge.configure_beside), not waited for
    beside_seconds: float = 0.0

    @property
    def python_seconds(self) -> float:
        """The phase's time outside the native calls it waited for."""
        return max(0.0, self.seconds - sum(n.seconds for n in self.native) + self.beside_seconds)


@dataclass(frozen=True)
class StepTime:
    """One step's native seconds over the whole load (all its phases and attempts)."""

    step: int
    op_index: int
    opcode: str
    kind: str
    shapes: Tuple[Tuple[int, ...], ...]  # its tensors, inputs then output (numpy order)
    seconds: float
    native: Tuple[Tuple[str, float], ...]  # (category, seconds)


@dataclass(frozen=True)
class ConfigureProfile:
    model: str
    backend: str
    reuse_facts: bool
    steps_total: int
    phases: Tuple[PhaseTime, ...]
    steps: Tuple[StepTime, ...]  # every step, in plan order
    first_run_seconds: Optional[float] = None  # None until the first inference ran
    # functions made from a decision kept by an earlier process (acl_bridge.decisions): for
    # them nothing was described, negotiated, planned or probed, only configured and imported
    functions_recalled: int = 0

    @property
    def configure_seconds(self) -> float:
        """The load: every phase (the first run is not part of it)."""
        return sum(p.seconds for p in self.phases)

    @property
    def first_result_seconds(self) -> Optional[float]:
        """Load plus first inference: the time to the first result."""
        return None if self.first_run_seconds is None else self.configure_seconds + self.first_run_seconds

    def native_totals(self) -> Dict[str, NativeTime]:
        """Each category over the whole load."""
        out: Dict[str, NativeTime] = {}
        for p in self.phases:
            for n in p.native:
                o = out.get(n.category, NativeTime(n.category, 0.0, 0, 0))
                out[n.category] = NativeTime(n.category, o.seconds + n.seconds, o.calls + n.calls, o.reused + n.reused)
        return out

    def as_dict(self) -> Dict[str, object]:
        return {
            "model": self.model, "backend": self.backend, "reuse_facts": self.reuse_facts,
            "functions_recalled": self.functions_recalled,
            "configure_seconds": round(self.configure_seconds, 6),
            "first_run_seconds": None if self.first_run_seconds is None else round(self.first_run_seconds, 6),
            "first_result_seconds": None if self.first_result_seconds is None else round(self.first_result_seconds, 6),
            "phases": [{"phase": p.phase, "seconds": round(p.seconds, 6), "python_seconds": round(p.python_seconds, 6),
                        "beside_seconds": round(p.beside_seconds, 6),
                        "native": [{"category": n.category, "seconds": round(n.seconds, 6), "calls": n.calls,
                                    "reused": n.reused} for n in p.native]} for p in self.phases],
            "steps": [{"step": s.step, "op_index": s.op_index, "opcode": s.opcode, "kind": s.kind,
                       "shapes": [list(x) for x in s.shapes], "seconds": round(s.seconds, 6),
                       "native": {c: round(v, 6) for c, v in s.native}} for s in self.steps],
        }

    def text(self, top_steps: int = 8) -> str:
        """The table: phases with their native categories, then the costliest steps."""
        total = self.configure_seconds or 1e-12
        rows = [f"configure profile: {self.model} on {self.backend}, {self.steps_total} steps, "
                f"facts {'reused by content' if self.reuse_facts else 'asked per function'}, "
                f"{self.functions_recalled} functions made from kept decisions",
                f"{'phase':<28}{'seconds':>9}{'share':>8}  native calls (made / reused)"]
        for p in self.phases:
            rows.append(f"{p.phase:<28}{p.seconds:>9.3f}{100 * p.seconds / total:>7.1f}%")
            for n in p.native:
                rows.append(f"  {n.category:<26}{n.seconds:>9.3f}{100 * n.seconds / total:>7.1f}%  "
                            f"{n.calls} / {n.reused}")
            if p.beside_seconds:
                rows.append(f"  {'(native beside, not waited)':<26}{p.beside_seconds:>9.3f}")
            if p.native:
                rows.append(f"  {'python':<26}{p.python_seconds:>9.3f}{100 * p.python_seconds / total:>7.1f}%")
        rows.append(f"{'load (configure)':<28}{self.configure_seconds:>9.3f}")
        if self.first_run_seconds is not None:
            rows.append(f"{'first run (weights prepared)':<28}{self.first_run_seconds:>9.3f}")
            rows.append(f"{'time to the first result':<28}{self.first_result_seconds:>9.3f}")
        costly = sorted(self.steps, key=lambda s: -s.seconds)[:top_steps]
        if costly:
            rows.append("costliest steps (native seconds over the load):")
            for s in costly:
                parts = ", ".join(f"{c} {v:.3f}" for c, v in s.native if v > 0)
                rows.append(f"  step {s.step:>3} op {s.op_index:>3} {s.opcode:<20} {s.kind:<12} "
                            f"{' '.join('x'.join(map(str, x)) for x in s.shapes):<32} {s.seconds:.3f} s ({parts})")
        return "\n".join(rows)


class LoadPhases:
    """Wall-clock seconds per loading phase (:data:`PHASES`), with the configure session's
    native calls made in each (a phase entered again, as renegotiation is, adds up)."""

    def __init__(self, session: "ConfigureSession"):
        self.session = session
        self._seconds: Dict[str, float] = {}
        self._native: Dict[str, Dict[str, List[float]]] = {}
        self._beside: Dict[str, float] = {}

    @contextmanager
    def phase(self, name: str):
        s = self.session
        before = {c: (s.seconds.get(c, 0.0), s.calls.get(c, 0), s.reused.get(c, 0)) for c in CATEGORIES}
        beside = sum(s.beside.values())
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self._seconds[name] = self._seconds.get(name, 0.0) + time.perf_counter() - t0
            self._beside[name] = self._beside.get(name, 0.0) + sum(s.beside.values()) - beside
            native = self._native.setdefault(name, {})
            for c, (sec, calls, reused) in before.items():
                d = [s.seconds.get(c, 0.0) - sec, s.calls.get(c, 0) - calls, s.reused.get(c, 0) - reused]
                if d[1] or d[2]:
                    acc = native.setdefault(c, [0.0, 0, 0])
                    for i in range(3):
                        acc[i] += d[i]

    def rows(self) -> Tuple[PhaseTime, ...]:
        """The phases that ran, in :data:`PHASES` order (an empty program-cache phase left out)."""
        out = []
        for name in PHASES:
            if name not in self._seconds or (name == "program_cache" and not self._native.get(name)
                                              and self._seconds[name] < 1e-4):
                continue
            native = self._native.get(name, {})
            out.append(PhaseTime(name, self._seconds[name], tuple(
                NativeTime(c, native[c][0], int(native[c][1]), int(native[c][2])) for c in CATEGORIES if c in native),
                max(0.0, self._beside.get(name, 0.0))))  # (a wait longer than the jobs it waited for: none beside)
        return tuple(out)


__all__ = ["ConfigureProfile", "PhaseTime", "NativeTime", "StepTime", "PHASES", "LoadPhases"]
