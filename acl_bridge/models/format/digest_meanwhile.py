"""A file's SHA-256 computed on another thread while the caller goes on (the reader parses).

A model's identity (:attr:`.tflite_reader.ModelSpec.sha256`) is the SHA-256 of its bytes;
under emulation on arm64 that costs 2.5 ms (front, 229 KB) to 28 ms (face_landmark, 2.4 MB),
8x what the caches' MD5 costs, on every first start. hashlib hands the interpreter lock back
while it hashes a buffer, so the hash runs beside the parse instead of after it: the same
digest, found sooner. A small file (or a thread that cannot start) is hashed on the caller's
thread."""

from __future__ import annotations

import hashlib
import threading
from typing import Optional

# below this a thread costs more than the hash it would hide
THREAD_MIN_BYTES = 1 << 16


class Sha256Meanwhile:
    """The SHA-256 of ``data`` (read-only for the caller until :meth:`hexdigest` returns),
    started now."""

    def __init__(self, data) -> None:
        self._data = data
        self._hex: Optional[str] = None
        self._thread: Optional[threading.Thread] = None
        if len(data) >= THREAD_MIN_BYTES:
            thread = threading.Thread(target=self._hash, name="acl-ndarray model sha256", daemon=True)
            try:
                thread.start()
                self._thread = thread
            except RuntimeError:  # no thread to be had: hashed on the caller's, when asked
                pass

    def _hash(self) -> None:
        self._hex = hashlib.sha256(self._data).hexdigest()

    def hexdigest(self) -> str:
        """The hex digest (waits for the thread; hashes here where it did not finish)."""
        self.wait()
        if self._hex is None:
            self._hash()
        return self._hex  # type: ignore[return-value]

    def wait(self) -> None:
        """Return once no thread hashes any more (nothing is hashed here)."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None


__all__ = ["Sha256Meanwhile", "THREAD_MIN_BYTES"]
