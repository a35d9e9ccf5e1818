"""Schedule: run a sequence of configured functions in one call into the native layer.

A network runs one function per operator; calling ``run()`` on each crosses from Python to
C++ once per operator. A :class:`Schedule` hands the native layer the list of function
handles once (``acl_shim_schedule_run``), so an inference crosses once, with the GIL
released for all of it. Functions that stage a tensor (copy fallback) need Python between
their copies and their kernel: the schedule splits around them and says so (``segments``).

Lifetime: the schedule holds the functions (hence their buffers). Closing one of them
invalidates the schedule (after a run in progress finishes); running it then raises.
"""

from __future__ import annotations

import threading
import time
import weakref
from typing import List, Sequence, Tuple, Union

from ndarray.errors import ArgumentTypeError

from .configure_batch import RecalledFunctions
from .errors import AclError
from .functions import AclFunction
from .layout import check_int
from .native import check, require_native

_Segment = Union[Tuple[str, object, int], Tuple[str, AclFunction, int]]


class Schedule:
    """Configured functions run in order by :meth:`run`; one native call per run when none
    of them stages a tensor (``native_calls_per_run == 1``)."""

    def __init__(self, functions: Sequence[AclFunction]):
        """``functions``: configured AclFunctions, in order, or a
        :class:`~acl_bridge.configure_batch.RecalledFunctions` (run as it is: its objects are
        not made for it)."""
        self._lock = threading.Lock()
        self._invalid = ""
        ffi, lib = require_native()
        self._native_run = lib.acl_shim_schedule_run
        self._failed = ffi.new("int32_t *")
        self._segments: List[_Segment] = []
        if isinstance(functions, RecalledFunctions) and not functions.materialized:
            if not functions.handles:
                raise AclError("the functions are closed", what="Schedule")
            self.functions = functions  # type: ignore[assignment]
            owners = functions.handles  # nothing stages in a batch: one native segment
            self._segments.append(("native", (ffi.new("acl_shim_function *[]", list(owners)), functions.kinds,
                                              owners), len(owners)))
            functions.register_schedule(weakref.ref(self))
            return
        functions = list(functions)
        for i, f in enumerate(functions):
            if not isinstance(f, AclFunction):
                raise ArgumentTypeError(f"functions[{i}] is {type(f).__name__}, expected a configured AclFunction")
            if f.closed:
                raise AclError(f"functions[{i}] ({f.kind}) is closed", what="Schedule")
        self.functions: Sequence[AclFunction] = tuple(functions)
        batch: List[AclFunction] = []
        for f in self.functions:
            if f.staged:
                self._flush(ffi, batch)
                self._segments.append(("python", f, 1))
            else:
                batch.append(f)
        self._flush(ffi, batch)
        ref = weakref.ref(self)
        for f in self.functions:
            f._schedules.append(ref)

    def _flush(self, ffi, batch: List[AclFunction]) -> None:
        if batch:
            # the handle objects themselves: the native functions live while a segment holds them
            owners = tuple(f._configured.handle for f in batch)  # type: ignore[union-attr]
            handles = ffi.new("acl_shim_function *[]", list(owners))
            self._segments.append(("native", (handles, tuple(f.kind for f in batch), owners), len(batch)))
            batch.clear()

    @property
    def native_calls_per_run(self) -> int:
        return len(self._segments)

    @property
    def segments(self) -> Tuple[Tuple[str, int], ...]:
        """("native", n functions) or ("python", 1) per crossing, in order."""
        return tuple((kind, n) for kind, _, n in self._segments)

    def _invalidate(self, why: str) -> None:
        with self._lock:  # waits for a run in progress
            self._invalid = why
            self._segments = []

    def run(self) -> "Schedule":
        """Run every function once, in order."""
        with self._lock:
            if self._invalid:
                raise AclError(f"schedule can no longer run: {self._invalid}", what="Schedule")
            for kind, item, n in self._segments:
                if kind == "native":
                    handles, kinds, _ = item  # type: ignore[misc]
                    status = self._native_run(handles, n, self._failed)
                    if status:
                        at = self._failed[0]
                        check(status, f"schedule: function {at} ({kinds[at] if 0 <= at < n else '?'})")
                else:
                    item.run()  # type: ignore[union-attr]
        return self

    def profile(self, rounds: int = 5) -> Tuple[Tuple[float, ...], ...]:
        """Run every function ``rounds`` times, in order, timing each run: per function (in
        :attr:`functions` order) its seconds in each round. A native segment is timed inside
        the native layer (``acl_shim_schedule_profile``: no Python between its functions); a
        staged function's run, copies included, in Python."""
        rounds = check_int(rounds, "rounds", minimum=1)
        ffi, lib = require_native()
        times: List[List[float]] = [[0.0] * len(self.functions) for _ in range(rounds)]
        with self._lock:
            if self._invalid:
                raise AclError(f"schedule can no longer run: {self._invalid}", what="Schedule")
            for r in range(rounds):
                first = 0
                for kind, item, n in self._segments:
                    if kind == "native":
                        handles, kinds, _ = item  # type: ignore[misc]
                        seconds = ffi.new("double[]", n)
                        status = lib.acl_shim_schedule_profile(handles, n, 1, seconds, self._failed)
                        if status:
                            at = self._failed[0]
                            check(status, f"schedule profile: function {at} ({kinds[at] if 0 <= at < n else '?'})")
                        times[r][first:first + n] = list(seconds)
                    else:
                        t0 = time.perf_counter()
                        item.run()  # type: ignore[union-attr]
                        times[r][first] = time.perf_counter() - t0
                    first += n
        return tuple(tuple(times[r][i] for r in range(rounds)) for i in range(len(self.functions)))

    def __call__(self) -> "Schedule":
        return self.run()

    def __len__(self) -> int:
        return len(self.functions)

    def __repr__(self) -> str:
        return f"Schedule({len(self.functions)} functions, {self.native_calls_per_run} native calls per run)"
