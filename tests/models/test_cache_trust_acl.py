"""The caches' trust boundary on a real model (emulated arm64; docs/robustness.md, "What the
caches trust"): planted and crafted kept files give a warning and a start whose outputs are
the cold start's, never an exception out of TfliteRunner() or memory the process cannot have."""

import json
import os

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from .conftest import model_file  # noqa: E402

pytestmark = pytest.mark.acl

MODEL = "face_detection_front"


def _cold(tmp_path):
    """A cold start's input and outputs; the caches it filled are in ``tmp_path``."""
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    with TfliteRunner(model_file(MODEL), model_cache=tmp_path / "models", facts_cache=tmp_path / "facts") as r:
        x = np.random.default_rng(42).uniform(-1, 1, r.input_shape).astype(np.float32)
        return x, {k: v.copy() for k, v in r.run(x).items()}


def _start(tmp_path, x):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    r = TfliteRunner(model_file(MODEL), model_cache=tmp_path / "models", facts_cache=tmp_path / "facts")
    return r, r.run(x)


def _same(got, want):
    assert set(got) == set(want)
    for k in want:
        assert np.array_equal(got[k], want[k]), k


def _reseal_facts(tmp_path, change):
    """Rewrite the facts file as someone who knows its format would: ``change`` edits the
    answers (a dict), the file is sealed again with a checksum that holds."""
    from acl_bridge import facts_cache as fc
    from acl_bridge.user_cache import seal, unseal

    (path,) = (tmp_path / "facts").iterdir()
    head, body = unseal(fc.MAGIC, fc.FORMAT_VERSION, path.read_bytes(), "a facts file")
    answers = json.loads(bytes(body))
    change(answers)
    path.write_bytes(seal(fc.MAGIC, fc.FORMAT_VERSION, bytes(head), json.dumps(answers).encode()))
    return path


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root (every stage runs as root)")
def test_a_planted_facts_file_of_another_user_is_not_used(tmp_path):
    from acl_bridge.facts_cache import FactsCacheWarning

    x, want = _cold(tmp_path)
    (path,) = (tmp_path / "facts").iterdir()
    os.chown(path, 65534, 65534)
    with pytest.warns(FactsCacheWarning, match="belongs to uid 65534"):
        r, got = _start(tmp_path, x)
    with r:
        assert r.facts_cache.state == "cold" and r.functions_recalled == 0
        _same(got, want)


def test_a_parsed_model_others_may_write_is_not_used(tmp_path):
    """The plan and parsed-model files with mode 0666 (a folder others may write is the same
    refusal, tested on the host): read afresh from the model, the planted weights never used."""
    from acl_bridge.models.format.model_cache import ModelCacheWarning

    x, want = _cold(tmp_path)
    for f in (tmp_path / "models").iterdir():
        if f.name != "secret.key":
            f.chmod(0o666)
    with pytest.warns(ModelCacheWarning, match="mode 666"):
        r, got = _start(tmp_path, x)
    with r:
        assert r.model_cache.state == "cold"
        _same(got, want)


def test_a_kept_arena_offset_of_a_terabyte_is_placed_afresh(tmp_path):
    from acl_bridge.configure_session import MEMORY_PLAN

    x, want = _cold(tmp_path)

    def far(answers):
        for key, pairs in answers[MEMORY_PLAN].items():
            answers[MEMORY_PLAN][key] = [[t, (1 << 40) + 64 * k] for k, (t, _) in enumerate(pairs)]

    _reseal_facts(tmp_path, far)
    r, got = _start(tmp_path, x)
    with r:
        assert r.facts_cache.state == "warm" and not r.memory_recalled
        assert r.memory.arena_size_in_bytes < 1 << 30
        _same(got, want)


def test_a_failure_while_starting_from_kept_files_is_a_cold_start(tmp_path, monkeypatch):
    """Whatever a kept file that passed every check still makes fail (here: the kept arena's
    check raising MemoryError, as an allocation would): a warning and a cold start."""
    from acl_bridge.models.planning import memory_plan
    from acl_bridge.models.format.model_cache import ModelCacheWarning

    x, want = _cold(tmp_path)

    def exhausted(*args, **kwargs):
        raise MemoryError("a crafted size")

    monkeypatch.setattr(memory_plan, "place_at", exhausted)
    with pytest.warns(ModelCacheWarning, match="failed .MemoryError: a crafted size.; starting cold"):
        r, got = _start(tmp_path, x)
    with r:
        assert r.facts_cache.state == "off" and r.model_cache.state == "off"
        _same(got, want)
