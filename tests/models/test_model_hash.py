"""A model file's identity (ModelSpec.md5: the key of every file kept for it) is its MD5, the
same whether the reader hashes the file or is handed the caches' hash, and a first start
through the parsed-model cache hashes the file once."""

import hashlib

import pytest

from acl_bridge.models.format import model_cache, tflite_reader
from acl_bridge.models.format.model_cache import read_model_cached
from acl_bridge.models.format.tflite_reader import model_hash, read_model

from .conftest import model_file


@pytest.mark.parametrize("name", ["face_landmark", "face_detection_front"])
def test_the_readers_md5_is_the_files_given_or_not(name):
    data = model_file(name).read_bytes()
    want = hashlib.md5(data).hexdigest()
    assert model_hash(data) == want == read_model(data).md5 == read_model(data, md5=model_hash(data)).md5
    assert read_model(data, md5="given").md5 == "given"  # handed over, not hashed again


def _counted(monkeypatch):
    calls = []
    real = tflite_reader.model_hash

    def counted(data):
        calls.append(len(data))
        return real(data)

    monkeypatch.setattr(tflite_reader, "model_hash", counted)
    monkeypatch.setattr(model_cache, "model_hash", counted)
    return calls


def test_a_cold_and_a_warm_read_hash_the_file_once_and_agree(tmp_path, monkeypatch):
    data = model_file("face_detection_front").read_bytes()
    calls = _counted(monkeypatch)
    cold, report = read_model_cached(data, tmp_path)
    assert report.state == "cold" and calls == [len(data)]
    warm, report = read_model_cached(data, tmp_path)
    assert report.state == "warm" and calls == [len(data)] * 2
    assert cold.md5 == warm.md5 == hashlib.md5(data).hexdigest()
    calls.clear()
    assert read_model_cached(data, False)[0].md5 == cold.md5 and calls == [len(data)]  # the cache off: the reader's
