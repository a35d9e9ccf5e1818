"""ACL's questions asked on a second thread while the caller goes on: a first start's probes
beside its decision pass (:mod:`acl_bridge.configure_cold`).

A probe configures and runs a function twice on scratch memory (:func:`acl_bridge.executor.probe`):
ACL's work alone, the GIL released. The decision pass hands each probe to a
:class:`QuestionThread` and goes on deciding the other functions; a probed function is decided
once the pass has been through every call (:meth:`Later.result`).

* ACL is asked one thing at a time: its runtime is not safe for functions configured on two
  threads at once. Every native question holds :data:`ACL_LOCK` while ACL works: the jobs here,
  and :meth:`acl_bridge.configure_session.ConfigureSession.ask` on the caller's thread.
* Jobs run in the order given, one at a time, on one bare ``_thread`` thread that starts with the
  first job (``threading.Thread.start`` also waits for the thread's bootstrap:
  :mod:`acl_bridge.keep_writer`). :meth:`QuestionThread.close` waits for every job given and
  ends the thread: nothing is left running ACL after it.
* Where this process may run on one CPU only there is no thread: a job runs at once, on the
  caller's thread (a thread would only take turns with it).
"""

from __future__ import annotations

import os
import threading
import time
import _thread
from collections import deque
from typing import Callable, Deque, Generic, Optional, TypeVar

T = TypeVar("T")

# held by whoever asks ACL a question (a reentrant lock: a question may be made of others)
ACL_LOCK = threading.RLock()


def cpus_available() -> int:
    """The CPUs this process may run on (its affinity where the OS says, else the count)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class Later(Generic[T]):
    """One job's answer to come: :meth:`result` waits for it. ``seconds``: the job's own time
    (ACL's, on whichever thread ran it); ``waited``: how long :meth:`result` waited for it."""

    __slots__ = ("_call", "_done", "_answer", "_error", "seconds", "waited")

    def __init__(self, call: Callable[[], T]):
        self._call: Optional[Callable[[], T]] = call
        self._done = threading.Event()
        self._answer: Optional[T] = None
        self._error: Optional[BaseException] = None
        self.seconds = 0.0
        self.waited = 0.0

    def _run(self) -> None:
        call, self._call = self._call, None
        t0 = None
        try:
            with ACL_LOCK:  # (timed once it holds the lock: waiting for it is not ACL's work)
                t0 = time.perf_counter()
                self._answer = call()  # type: ignore[misc]
        except BaseException as e:  # raised again by result(), on the caller's thread
            self._error = e
        finally:
            self.seconds = 0.0 if t0 is None else time.perf_counter() - t0
            self._done.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    def result(self) -> T:
        """The answer, once the job has run (what it raised is raised here)."""
        if not self._done.is_set():
            t0 = time.perf_counter()
            self._done.wait()
            self.waited = time.perf_counter() - t0
        if self._error is not None:
            raise self._error
        return self._answer  # type: ignore[return-value]


class QuestionThread:
    """Jobs run in order on one thread beside the caller (module docstring); ``threaded``
    False: each job runs at once on the caller's thread (default: whether more than one CPU is
    available)."""

    def __init__(self, threaded: Optional[bool] = None):
        self.threaded = cpus_available() > 1 if threaded is None else bool(threaded)
        self._jobs: Deque[Later] = deque()
        self._wake = threading.Condition(threading.Lock())
        self._running = False  # a worker thread is alive
        self._closed = False

    def submit(self, call: Callable[[], T]) -> Later[T]:
        """``call()`` asked beside the caller (holding :data:`ACL_LOCK`); its :class:`Later`."""
        later: Later[T] = Later(call)
        if not self.threaded:
            later._run()
            return later
        with self._wake:
            if self._closed:
                raise RuntimeError("this QuestionThread is closed")
            self._jobs.append(later)
            if not self._running:
                try:
                    _thread.start_new_thread(self._drain, ())
                except RuntimeError:  # no thread can start (the interpreter ending): here, now
                    self._jobs.pop()
                    later._run()
                    return later
                self._running = True
            else:
                self._wake.notify()
        return later

    def _drain(self) -> None:
        while True:
            with self._wake:
                while not self._jobs and not self._closed:
                    self._wake.wait()
                if not self._jobs:  # closed, nothing left
                    self._running = False
                    self._wake.notify_all()
                    return
                job = self._jobs.popleft()
            job._run()

    def close(self) -> None:
        """Wait for every job given, and end the thread (a closed thread takes no more jobs)."""
        with self._wake:
            self._closed = True
            self._wake.notify_all()
            while self._running:
                self._wake.wait()

    def __enter__(self) -> "QuestionThread":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


__all__ = ["ACL_LOCK", "Later", "QuestionThread", "cpus_available"]
