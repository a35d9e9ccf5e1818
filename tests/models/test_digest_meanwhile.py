"""The model's SHA-256 hashed beside the parse (acl_bridge.models.format.digest_meanwhile):
the digest hashlib gives, on the thread or on the caller's, and no thread left behind."""

import hashlib
import threading

import pytest

from acl_bridge.models.format.digest_meanwhile import THREAD_MIN_BYTES, Sha256Meanwhile


@pytest.mark.parametrize("size", [0, 1, THREAD_MIN_BYTES - 1, THREAD_MIN_BYTES, 3 * THREAD_MIN_BYTES + 5])
def test_the_digest_is_hashlibs(size):
    data = bytes((k * 7 + 3) % 251 for k in range(size))
    d = Sha256Meanwhile(memoryview(data))
    assert d.hexdigest() == hashlib.sha256(data).hexdigest()
    assert d.hexdigest() == hashlib.sha256(data).hexdigest()  # asked again: the same
    assert not any(t.name == "acl-ndarray model sha256" for t in threading.enumerate())


def test_a_thread_that_cannot_start_hashes_on_the_callers(monkeypatch):
    def refuse(self):
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    data = b"\x01" * (2 * THREAD_MIN_BYTES)
    d = Sha256Meanwhile(data)
    d.wait()  # nothing under way: returns at once
    assert d.hexdigest() == hashlib.sha256(data).hexdigest()


def test_a_refused_file_leaves_no_thread():
    """A file the reader refuses (not a TFLite model) still waits for its hash thread."""
    pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
    from acl_bridge.models.format.tflite_reader import ModelFormatError, read_model

    with pytest.raises(ModelFormatError, match="TFL3"):
        read_model(b"\x00" * (2 * THREAD_MIN_BYTES))
    assert not any(t.name == "acl-ndarray model sha256" for t in threading.enumerate())
