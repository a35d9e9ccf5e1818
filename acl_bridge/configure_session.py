"""Where a configure's seconds go, and ACL's answers asked once per content within one load.

Loading a model configures many ACL functions, and before each configure the bridge asks
ACL questions about it (:mod:`acl_bridge.executor`): which padding it wants
(``negotiate``), whether validate() accepts exact layouts (``check_layouts``), its auto
padding (``auto_padding``), what it writes outside the elements (``probe``). The answers
depend only on the question's content: the function kind, its native parameters (bytes),
the tensors' specs or native descriptions (bytes), the backend; ACL's version and the CPU
are those of the process. A :class:`ConfigureSession`, while :meth:`~ConfigureSession.active`
on a thread, keeps each answer by that content, so identical steps of a model (and the
function that asks again what the negotiation already asked) pay for it once; and it
times every native call the executor makes by category (the four questions, plus
``configure``: ACL's validate() and configure() in ``acl_shim_function_create``, and
``import``: native tensors made and their memory imported), in total and per step.

Outside a session (a lone :class:`~acl_bridge.functions.AclFunction`) nothing is kept and
nothing is timed: :func:`ask` calls straight through. A session never outlives the load
that made it, so an answer never meets another ACL, CPU or OpenCL device.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from contextlib import contextmanager
from typing import Callable, Dict, Hashable, Iterator, Optional, TypeVar

T = TypeVar("T")

# the categories, in the order a function meets them
CATEGORIES = ("negotiate", "check_layouts", "auto_padding", "probe", "configure", "import")
# the questions whose answers may be reused (configure and import make the function itself)
REUSABLE = frozenset({"negotiate", "check_layouts", "auto_padding", "probe"})

_LOCAL = threading.local()


class ConfigureSession:
    """ACL's answers by content (``reuse=True``) and the seconds of native calls by category.

    ``seconds[c]``, ``calls[c]`` (native calls made) and ``reused[c]`` (answers given from
    the memo) per category; ``step_seconds[step][c]`` for the step set in :attr:`step`
    while the call was made (None: no step)."""

    def __init__(self, reuse: bool = True):
        self.reuse = bool(reuse)
        self.seconds: Dict[str, float] = defaultdict(float)
        self.calls: Dict[str, int] = defaultdict(int)
        self.reused: Dict[str, int] = defaultdict(int)
        self.step_seconds: Dict[int, Dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.step: Optional[int] = None
        self._answers: Dict[Hashable, object] = {}

    def _add(self, category: str, seconds: float) -> None:
        self.seconds[category] += seconds
        self.calls[category] += 1
        if self.step is not None:
            self.step_seconds[self.step][category] += seconds

    def ask(self, category: str, key: Callable[[], Hashable], call: Callable[[], T]) -> T:
        """``call()``'s answer, from the memo when the same ``key()`` was asked before in this
        session (categories in REUSABLE, ``reuse=True``); timed when it is asked of ACL.
        A call that raises is timed and not kept."""
        k = None
        if self.reuse and category in REUSABLE:
            k = (category, key())
            if k in self._answers:
                self.reused[category] += 1
                return self._answers[k]  # type: ignore[return-value]
        t0 = time.perf_counter()
        try:
            answer = call()
        finally:
            self._add(category, time.perf_counter() - t0)
        if k is not None:
            self._answers[k] = answer
        return answer

    @contextmanager
    def timed(self, category: str) -> Iterator[None]:
        """Time a native call that is never reused (``configure``, ``import``)."""
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self._add(category, time.perf_counter() - t0)

    def forget(self) -> None:
        """Drop the answers kept (the load is over); the times and counts stay."""
        self._answers.clear()

    def native_seconds(self) -> float:
        return sum(self.seconds.values())

    @contextmanager
    def active(self) -> Iterator["ConfigureSession"]:
        """Make this the session of the current thread (the previous one comes back after)."""
        previous = getattr(_LOCAL, "session", None)
        _LOCAL.session = self
        try:
            yield self
        finally:
            _LOCAL.session = previous


def current() -> Optional[ConfigureSession]:
    """The session active on this thread, or None."""
    return getattr(_LOCAL, "session", None)


def ask(category: str, key: Callable[[], Hashable], call: Callable[[], T]) -> T:
    """``call()`` through the active session (reused or timed), or directly without one."""
    session = current()
    if session is None:
        return call()
    return session.ask(category, key, call)


@contextmanager
def timed(category: str) -> Iterator[None]:
    """Time a native call in the active session (nothing without one)."""
    session = current()
    if session is None:
        yield
        return
    with session.timed(category):
        yield


__all__ = ["ConfigureSession", "current", "ask", "timed", "CATEGORIES", "REUSABLE"]
