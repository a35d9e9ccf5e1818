"""A model file's sha256 made beside the parse (acl_bridge.models.format.model_digest): the
digest hashlib gives, on a thread for a large file where two cores or more may run it, inline
otherwise, the hash's exception raised where the digest is asked for, and the reader's
ModelSpec.sha256 the same either way."""

import hashlib
import threading

import pytest

from acl_bridge.models.format import model_digest
from acl_bridge.models.format.tflite_reader import read_model

from .conftest import model_file


def _threads_started(monkeypatch):
    started = []
    real = threading.Thread.start

    def start(self):
        started.append(self.name)
        return real(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    return started


@pytest.mark.parametrize("size, cores, on_thread", [
    (model_digest.MIN_BYTES - 1, 2, False),
    (model_digest.MIN_BYTES, 2, True),
    (model_digest.MIN_BYTES * 3, 1, False),  # one core: hashed where it was
])
def test_the_digest_is_hashlibs_on_a_thread_only_where_it_gains(size, cores, on_thread, monkeypatch):
    monkeypatch.setattr(model_digest, "_cores", lambda: cores)
    started = _threads_started(monkeypatch)
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    digest = model_digest.sha256_later(data)
    assert started == (["acl-ndarray model digest"] if on_thread else [])
    assert digest() == hashlib.sha256(data).hexdigest() == digest()


def test_an_exception_of_the_hash_is_raised_by_the_digest(monkeypatch):
    monkeypatch.setattr(model_digest, "_cores", lambda: 2)

    def refuse(data):
        raise MemoryError("no memory for the hash")

    monkeypatch.setattr(model_digest.hashlib, "sha256", refuse)
    digest = model_digest.sha256_later(bytes(model_digest.MIN_BYTES))
    with pytest.raises(MemoryError, match="no memory for the hash"):
        digest()


def test_the_readers_sha256_is_the_same_given_a_digest():
    data = model_file("face_landmark").read_bytes()  # 2.4 MB: hashed on a thread where two cores may
    assert len(data) >= model_digest.MIN_BYTES
    spec = read_model(data, sha256=model_digest.sha256_later(data))
    assert spec.sha256 == read_model(data).sha256 == hashlib.sha256(data).hexdigest()


def test_where_no_thread_may_start_the_digest_is_hashed_when_asked(monkeypatch):
    """(At the interpreter's exit Thread.start raises RuntimeError.)"""
    monkeypatch.setattr(model_digest, "_cores", lambda: 2)

    def refuse(self):
        raise RuntimeError("can't create new thread at interpreter shutdown")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    data = bytes(model_digest.MIN_BYTES)
    assert model_digest.sha256_later(data)() == hashlib.sha256(data).hexdigest()
