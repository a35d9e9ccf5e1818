"""A first start's functions made in pieces while its decision pass goes on.

A first start decides every function (:func:`acl_bridge.configure_cold.decide_calls`), then
makes them all in one native call (:func:`acl_bridge.configure_batch.configure_kept`). The pass
is Python, the making is ACL's work with the GIL released: :class:`MadeBeside` takes each
decision as the pass makes it and, whenever its :class:`~acl_bridge.question_thread.QuestionThread`
is idle, hands the calls decided since (a prefix in call order, the staging ones left out) to
that thread as one ``acl_shim_plan_create`` call. The pieces make the same functions, in the
same order, into the same workspace as the one call would (the native call makes one function
after another and nothing else), and :meth:`MadeBeside.made` joins them into one
:class:`~acl_bridge.configure_batch.RecalledFunctions`. ACL is asked one thing at a time
(:data:`~acl_bridge.question_thread.ACL_LOCK`): the pass's probes go to the same thread.

All or nothing, as the one call: where a piece cannot be prepared or ACL refuses one, every
piece made is let go, the reason is returned, and the caller makes the functions one at a time
with a fresh workspace.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from . import configure_session as session
from .configure_batch import PreparedBatch, RecalledFunctions, prepare_kept
from .decisions import Decision, KeptDecisions
from .errors import AclError
from .question_thread import Later, QuestionThread


class MadeBeside:
    """The functions of ``calls`` ((class, tensors, keyword arguments with one workspace), as
    :func:`~acl_bridge.configure_batch.configure_kept` takes them) made on ``thread`` as their
    decisions come (:meth:`decided`); :meth:`made` waits and joins them, :meth:`close` lets
    them go. The thread (default: a threaded :class:`QuestionThread`) is this object's, closed
    by :meth:`made` or :meth:`close`."""

    def __init__(self, calls: Sequence[Tuple[type, tuple, dict]], thread: Optional[QuestionThread] = None):
        self.thread = QuestionThread(threaded=True) if thread is None else thread
        self._calls = list(calls)
        self._decided: Dict[int, Optional[Decision]] = {}
        self._next = 0  # the first call not handed on yet (every earlier one is decided)
        self._pieces: List[_Piece] = []
        self._why = ""  # why a piece could not be prepared (nothing more is handed on then)

    def decided(self, k: int, decision: Optional[Decision]) -> None:
        """Call ``k``'s decision (None: it stages a tensor, made one at a time by the caller);
        the calls decided since the last piece are handed on now where the thread is idle."""
        self._decided[k] = decision
        if not self._pieces or self._pieces[-1].done:
            self._hand_on()

    def _hand_on(self) -> None:
        """The calls decided in a row from the first not handed on, as one piece on the thread."""
        if self._why:
            return
        ks: List[int] = []
        ds: List[Decision] = []
        while self._next in self._decided:
            d = self._decided[self._next]
            if d is not None and not d.plan.staged:
                ks.append(self._next)
                ds.append(d)
            self._next += 1
        if not ks:
            return
        batch, why = prepare_kept([self._calls[k] for k in ks], ds, decided_here=True)  # (a read-only
        # output raises ReadOnlyError, as configure_kept and the constructor raise it)
        if batch is None:
            self._why = f"functions {ks[0]}-{ks[-1]}: {why}"
            return
        piece = _Piece(ks, batch)
        self._pieces.append(piece)  # (before it runs: whatever happens next, _wait finds it)
        piece.later = self.thread.submit(batch.create)

    def made(self, batch: Sequence[int]) -> Tuple[Optional[RecalledFunctions], str]:
        """The functions of the calls ``batch`` (the caller's: every decided call that stages
        nothing, in order), joined, and ""; or (None, why) with nothing made (module
        docstring). Waits for every piece; the thread is closed, whatever is raised."""
        try:
            self._hand_on()
            pieces = list(self._pieces)
            handed = [k for p in pieces for k in p.calls]
            why = self._why or ("" if handed == list(batch) else
                                f"{len(handed)} functions made beside the pass, {len(batch)} to make")
            calls = [c for p in pieces for c in p.batch.calls]  # (as each piece took them)
            kept = None if why else KeptDecisions.of([d for p in pieces for d in p.batch.decisions],
                                                      by_identity=True)  # (while the last piece runs)
        finally:
            parts = self._wait()
        refusals = [p for p in parts if isinstance(p, str)]
        if why or refusals or kept is None:
            return None, why or refusals[0]  # (every piece made is let go with ``parts``)
        handles: list = []
        tensors: list = []
        seconds: list = []
        for h, t, s in parts:
            handles += h
            tensors += t
            seconds += s
        out = RecalledFunctions(calls, kept, handles, tensors)
        out.seconds = tuple(seconds)
        return out, ""

    def _wait(self) -> list:
        """Every piece waited for and owned (timed in the session, its time less the wait for
        it as beside it): per piece (handles, tensors, seconds) or why ACL refused it, naming
        the call. The thread is closed after (its jobs are these pieces and probes already
        answered); a wait cut short (an interrupt) still owns, and so lets go, every piece made."""
        s = session.current()
        pieces, self._pieces = self._pieces, []
        parts: list = []
        try:
            for p in pieces:
                parts.append(p.owned(s))
        finally:
            try:
                self.thread.close()
            finally:
                for p in pieces[len(parts):]:  # (cut short: the rest, all run by now, let go)
                    p.let_go()
        return parts

    def close(self) -> None:
        """Wait for what runs; let every piece made go (idempotent)."""
        self._why = self._why or "closed"
        self._wait()


class _Piece:
    """Calls handed on together: their indices, their batch, and its job (None until given)."""

    __slots__ = ("calls", "batch", "later")

    def __init__(self, calls: List[int], batch: PreparedBatch):
        self.calls, self.batch = calls, batch
        self.later: Optional[Later[None]] = None

    @property
    def done(self) -> bool:
        return self.later is None or self.later.done

    def owned(self, s: Optional["session.ConfigureSession"]) -> object:
        """(handles, tensors, seconds) once made, or why not (naming the refused call by its
        index in the pass); timed in ``s``."""
        if self.later is None:  # (never given to the thread: nothing made)
            return "a piece was not handed on"
        try:
            self.later.result()  # (ACL's refusal is create()'s status, not raised)
            return self.batch.owned()
        except (AclError, RuntimeError, MemoryError) as e:
            at = self.batch.failed_index
            return f"call {self.calls[at]} of the pass ({at} of its piece): {e}" if 0 <= at < len(self.calls) \
                else str(e)
        finally:
            if s is not None:
                s.add_beside("configure", self.later)

    def let_go(self) -> None:
        """What the batch made, owned and dropped (its job has run: the thread is closed)."""
        if self.later is not None and self.later.done:
            try:
                self.batch.owned()
            except (AclError, RuntimeError):
                pass


__all__ = ["MadeBeside"]
