"""A model file's sha256 (``ModelSpec.sha256``, the facts cache's key of the model) made on a
thread of its own while the reader parses the file, for large files on machines with more than
one core.

A first start hashes the whole file twice: MD5 for the parsed-model and plan caches' keys, then
sha256 when the reader has parsed it. ``hashlib`` lets go of the GIL while it hashes, so a thread
started when the parse starts hashes beside the reader's Python. A thread start costs more than
hashing a small file: under emulation sha256 ran at ~75 MB/s (face_landmark's 2.4 MB: 32 ms;
the 200-330 KB models: 3-6 ms) and a process's first thread took 5-10 ms to start; so only a
file of at least :data:`MIN_BYTES` is hashed on a thread, and only where the process may run on
two cores or more. This moves the hash onto a second core: on a one-core board it would gain
nothing, and the hash is made where it was, on the caller's thread.
"""

from __future__ import annotations

import hashlib
import os
import threading
from typing import Callable, List

MIN_BYTES = 512 << 10


def _cores() -> int:
    """The cores this process may run on (its affinity where the system says it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def sha256_later(data: bytes) -> Callable[[], str]:
    """A function that returns ``hashlib.sha256(data).hexdigest()``: hashed on a thread started
    now where ``data`` holds at least :data:`MIN_BYTES` and the process has two cores or more
    (the function waits for it), else when it is called. An exception of the hash is raised by
    the function, on the caller's thread; in the child of a ``fork`` made meanwhile (which has
    no such thread), or where no thread may start (at exit), the function hashes there."""
    if len(data) < MIN_BYTES or _cores() < 2:
        return lambda: hashlib.sha256(data).hexdigest()
    out: List[object] = []

    def run() -> None:
        try:
            out.append(hashlib.sha256(data).hexdigest())
        except BaseException as e:  # (MemoryError): raised again where the digest is asked for
            out.append(e)

    worker = threading.Thread(target=run, name="acl-ndarray model digest", daemon=True)
    try:
        worker.start()
    except RuntimeError:  # no thread may start (the interpreter is exiting): hashed when asked
        return lambda: hashlib.sha256(data).hexdigest()

    def digest() -> str:
        worker.join()
        if not out:  # a fork's child: the thread never ran here
            return hashlib.sha256(data).hexdigest()
        if isinstance(out[0], BaseException):
            raise out[0]
        return str(out[0])

    return digest


__all__ = ["sha256_later", "MIN_BYTES"]
