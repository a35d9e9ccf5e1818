"""One background writer for the files the library keeps between processes: a load hands it
the encoding and writing of each file as a job, so that the load returns without waiting for
them and its first inference (native, the GIL released) overlaps them on another core.

* Jobs run one at a time in the order given, on one thread that starts when a job comes and
  ends when none is left. The interpreter waits for it at exit (this module's exit handler
  waits for every job given before it), so every job given before exit is written (a write is
  atomic anyway: user_cache.write_atomically). It is a bare ``_thread`` thread:
  ``threading.Thread.start`` also waits for the new thread's bootstrap (under QEMU 1.7-1.9 ms
  of the starter's time against 0.6-0.8: benchmarks/kept_release.py).
* A job returns (its result, the warnings it met). No warning is issued on the writer's
  thread: :meth:`Kept.wait` issues them on the caller's, and those nobody took are issued at
  the interpreter's exit. An exception a job raises becomes a warning of the job's class that
  names it. A job handed over at exit, when no thread can start any more, runs at once.
* A job may be held (:func:`hold`) until its owner lets it go (:func:`release`): a model
  runner holds its files until its first result is made, so that neither the thread's
  start nor the writing slows a first result. A held job is pending like a queued one; a
  read of its path or :func:`wait_all` releases it, the next :func:`hold` once its owner is
  gone (:func:`release_when_gone`), and those still held at the interpreter's exit are
  written then.
* A read of a cache file (:func:`acl_bridge.user_cache.read_trusted`) first waits for the
  pending jobs that write that path (:func:`wait_for`): a second load in the same process
  finds what the first one kept.
* After ``fork`` the child has no writer: its copies of the pending jobs end at once,
  unwritten there (the parent writes them: :attr:`Kept.forked`), and its reads wait for none.

On a machine with one core the writes cost as much time as before, only after the load
instead of inside it.
"""

from __future__ import annotations

import atexit
import os
import _thread
import threading
import warnings
import weakref
from collections import deque
from typing import Callable, Deque, Dict, List, Optional, Sequence, Set, Tuple, Type

# a job: () -> (result, the warnings it met)
Work = Callable[[], Tuple[object, Sequence[Warning]]]


class Kept:
    """One job of the writer (:func:`submit`, :func:`run_here`): the files it writes
    (``paths``), whether it has ended (:attr:`done`), its result once ended (:meth:`wait`)."""

    __slots__ = ("paths", "_work", "_warning", "_done", "_result", "_problems", "forked", "orphaned")

    def __init__(self, paths: Tuple[str, ...], work: Work, warning: Type[Warning]):
        self.paths = paths
        self._work: Optional[Work] = work
        self._warning = warning
        self._done = threading.Event()
        self._result: object = None
        self._problems: Tuple[Warning, ...] = ()
        self.forked = False  # ended unwritten in a child of fork (the parent writes it)
        self.orphaned = False  # held, and its owner is gone (release_when_gone): released at the next hold

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def wait(self, stacklevel: int = 2) -> object:
        """The job's result once it has ended (None where it ended in a fork's child), its
        warnings issued here, on the caller's thread (each once: a second wait issues none;
        ``stacklevel`` as warnings.warn's, 2: the caller's line)."""
        self._done.wait()
        with _STATE.lock:
            problems, self._problems = self._problems, ()
            _STATE.untaken.discard(self)
        for i, w in enumerate(problems):
            try:
                warnings.warn(w, stacklevel=stacklevel)
            except BaseException:  # (warnings as errors) the rest kept for a later wait or the exit
                if problems[i + 1:]:
                    with _STATE.lock:
                        self._problems = problems[i + 1:] + self._problems
                        _STATE.untaken.add(self)
                raise
        return self._result

    def result(self) -> object:
        """The job's result once it has ended, its warnings left for :meth:`wait`."""
        self._done.wait()
        return self._result

    def _run(self) -> None:
        work, self._work = self._work, None  # (what it holds is let go once written)
        try:
            self._result, problems = work()  # type: ignore[misc]
            self._problems = tuple(problems)
        except BaseException as e:  # a job's own failure (any): a warning of its class, never lost
            self._problems = (self._warning(f"could not keep {', '.join(self.paths)}: {type(e).__name__}: {e}"),)


class _State:
    """The writer's queue and the paths its pending jobs write (one per process; a fork's
    child makes its own: :func:`_after_fork_in_child`)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.idle = threading.Condition(self.lock)  # notified whenever a job ends
        self.queue: Deque[Kept] = deque()
        self.held: List[Kept] = []  # given with hold(), not yet released, in the order given
        self.pending: Dict[str, int] = {}  # path -> pending jobs writing it
        self.worker: Optional[int] = None  # the writer's thread identifier while it runs
        self.untaken: Set[Kept] = set()  # ended with warnings nobody has taken yet


_STATE = _State()


def _path(p: "os.PathLike[str] | str") -> str:
    return os.path.abspath(os.fspath(p))


def submit(paths: Sequence["os.PathLike[str] | str"], work: Work, warning: Type[Warning]) -> Kept:
    """``work`` on the writer's thread after the jobs given before it; the job. ``paths``: the
    files it writes (their reads wait for it); ``warning``: the class of the warning an
    exception of ``work`` becomes."""
    job = hold(paths, work, warning)
    release([job])
    return job


def hold(paths: Sequence["os.PathLike[str] | str"], work: Work, warning: Type[Warning]) -> Kept:
    """A job as :func:`submit`'s, pending at once but not run before :func:`release` gives it
    to the writer (or a read of one of its paths, :func:`wait_all`, the interpreter's exit, the
    next hold after its owner is gone: :func:`release_when_gone`)."""
    job = Kept(tuple(_path(p) for p in paths), work, warning)
    s = _STATE
    orphans = [j for j in list(s.held) if j.orphaned]
    if orphans:
        release(orphans)
    with s.lock:
        s.held.append(job)
        for p in job.paths:
            s.pending[p] = s.pending.get(p, 0) + 1
    return job


def release(jobs: Sequence[Kept]) -> None:
    """The held ``jobs`` (those of this process not yet released; others are ignored) queued
    for the writer in the order they were held, the writer started if none runs; where no
    thread may start (the interpreter exiting) they run here and now, on the caller's thread."""
    s = _STATE
    here: List[Kept] = []
    with s.lock:
        wanted = {id(j) for j in jobs}
        mine = [j for j in s.held if id(j) in wanted]
        if not mine:
            return
        s.held = [j for j in s.held if id(j) not in wanted]
        # the interpreter is exiting: no writer may start (3.11 starts one that dies unjoined)
        if s.worker is None and not threading.main_thread().is_alive():
            here = mine
        else:
            s.queue.extend(mine)
            if s.worker is None:
                try:  # (it takes the lock first: it cannot end before its identifier is set here)
                    s.worker = _thread.start_new_thread(_drain, (s,))
                except RuntimeError:  # (3.12+ at exit: no thread may start)
                    for _ in mine:
                        s.queue.pop()
                    here = mine
    for job in here:  # outside the lock (a job may read a cache file: wait_for takes it)
        _run_held(s, job)


def release_when_gone(owner: object, jobs: Sequence[Kept]) -> None:
    """Once ``owner`` is collected, its held ``jobs`` are released by the next :func:`hold` (or
    a wait, or the exit). The collector may run the callback inside any critical section of
    this module, on any thread: it only marks the jobs, taking no lock."""
    weakref.finalize(owner, _orphaned, tuple(jobs))


def _orphaned(jobs: Tuple[Kept, ...]) -> None:
    for job in jobs:
        job.orphaned = True


def _release_all_held() -> None:
    release(list(_STATE.held))


def _run_held(s: _State, job: Kept) -> None:
    """A held job run on the caller's thread (the interpreter exiting), as :func:`run_here`
    runs one: no longer pending while it runs, so that its own reads wait for nothing."""
    with s.lock:
        _release(s, job)
    job._run()
    with s.lock:
        _ended(s, job)


def run_here(paths: Sequence["os.PathLike[str] | str"], work: Work, warning: Type[Warning]) -> Kept:
    """``work`` at once on the caller's thread (the foreground), as a job that has ended."""
    job = Kept(tuple(_path(p) for p in paths), work, warning)
    job._run()
    with _STATE.lock:
        _ended(_STATE, job)
    return job


def _release(s: _State, job: Kept) -> None:
    for p in job.paths:  # (under s.lock)
        n = s.pending.get(p, 0) - 1
        if n > 0:
            s.pending[p] = n
        else:
            s.pending.pop(p, None)


def _drain(s: _State) -> None:
    """The writer: each job in turn until none is left, then the thread ends."""
    while True:
        with s.lock:
            if not s.queue:
                s.worker = None
                return
            job = s.queue[0]
        job._run()
        with s.lock:  # (done set under the lock: a fork sees the job queued or ended, never between)
            if s.queue and s.queue[0] is job:
                s.queue.popleft()
            _release(s, job)
            _ended(s, job)


def _ended(s: _State, job: Kept) -> None:
    """(Under s.lock) ``job`` has run: its warnings kept for a wait or the exit, its end told."""
    if job._problems:
        s.untaken.add(job)
    job._done.set()
    s.idle.notify_all()


def wait_for(path: "os.PathLike[str] | str") -> None:
    """Return once no pending job writes ``path`` (at once on the writer's own thread)."""
    s = _STATE
    if not s.pending or _thread.get_ident() == s.worker:
        return
    p = _path(path)
    held = [j for j in list(s.held) if p in j.paths]
    if held:
        release(held)
    with s.lock:
        while s.pending.get(p):
            s.idle.wait()


def wait_all() -> None:
    """Return once every job given so far has ended."""
    s = _STATE
    if _thread.get_ident() == s.worker:
        return
    _release_all_held()
    with s.lock:
        while s.queue:
            s.idle.wait()


def pending(path: "os.PathLike[str] | str") -> bool:
    """Whether a job that writes ``path`` has not ended yet."""
    return bool(_STATE.pending.get(_path(path)))


def _issue_untaken() -> None:
    """At exit: the jobs still held written here, every job waited for, then the warnings
    nobody took."""
    wait_all()
    with _STATE.lock:
        jobs = list(_STATE.untaken)
    for job in jobs:
        job.wait()


def _before_fork() -> None:
    _STATE.lock.acquire()  # no fork while the queue changes: the child sees it whole


def _after_fork_in_parent() -> None:
    _STATE.lock.release()


def _after_fork_in_child() -> None:
    """The child's own state: no writer, its copies of the pending jobs ended unwritten."""
    global _STATE
    old, _STATE = _STATE, _State()
    for job in (*old.queue, *old.held):
        job._work, job.forked, job._problems = None, True, ()
        job._done = threading.Event()
        job._done.set()
    _STATE.untaken = {j for j in old.untaken if j._problems}


atexit.register(_issue_untaken)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)

__all__ = ["Kept", "submit", "hold", "release", "release_when_gone", "run_here", "wait_for", "wait_all", "pending"]
