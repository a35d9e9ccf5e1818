"""The runner's kept files written after its first inference by the background writer
(emulated arm64): until then they are held, nothing written; while they are pending, an
inference gives the bits of a runner that wrote them during its load; once written they are
those files byte for byte, the reports say the same, and a second runner in the same process
finds them with no explicit wait (its reads wait); a runner let go unrun has its files marked
for release by the next load; a failed write is the cache's warning at the wait, on the
caller's thread."""

import os
import threading
import warnings

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge import keep_writer  # noqa: E402

from .conftest import model_file  # noqa: E402

pytestmark = pytest.mark.acl


def _files(folder):
    """{name: bytes} of the files under ``folder``."""
    return {os.path.relpath(os.path.join(d, n), folder): open(os.path.join(d, n), "rb").read()
            for d, _, names in os.walk(folder) for n in names}


def _hold_writer():
    gate = threading.Event()

    def hold():
        gate.wait()
        return None, ()

    keep_writer.submit([], hold, UserWarning)
    return gate


def test_files_kept_later_are_those_kept_during_the_load(tmp_path):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file("face_detection_front")
    now, later = tmp_path / "now", tmp_path / "later"
    x = np.random.default_rng(3).uniform(-1, 1, (1, 128, 128, 3)).astype(np.float32)
    with TfliteRunner(path, model_cache=now / "m", facts_cache=now / "f", keep_in_background=False) as fg:
        assert not fg.kept_pending
        want = {k: v.copy() for k, v in fg.run(x).items()}
        fg_reports = (fg.model_cache.reason, fg.facts_cache.saved, fg.facts_cache.reason)
    gate = _hold_writer()  # the files below stay pending until the gate opens
    bg = TfliteRunner(path, model_cache=later / "m", facts_cache=later / "f", keep_in_background=True)
    assert bg.kept_pending and _files(later) == {}
    got = bg.run(x)  # during the pending writes
    assert all(np.array_equal(got[k], want[k]) for k in want)
    gate.set()
    # a second runner in this process, the same folders, nothing waited for by hand: its reads wait
    with TfliteRunner(path, model_cache=later / "m", facts_cache=later / "f") as second:
        assert (second.model_cache.state, second.facts_cache.state) == ("warm", "warm")
        assert second.functions_recalled == len(second.functions)
    bg.wait_kept()
    assert not bg.kept_pending
    assert (bg.model_cache.reason, bg.facts_cache.saved, bg.facts_cache.reason) == fg_reports
    kept_now, kept_later = _files(now), _files(later)
    assert sorted(kept_later) == sorted(kept_now) and len(kept_now) == 2  # the plan, ACL's answers
    assert all(kept_later[n] == kept_now[n] for n in kept_now), "a file kept later differs from the one kept at once"
    bg.close()


def test_files_are_held_until_the_first_inference_or_the_runner_is_let_go(tmp_path):
    import gc

    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    path = model_file("keyword_spotting")
    runner = TfliteRunner(path, model_cache=tmp_path / "run" / "m", facts_cache=tmp_path / "run" / "f",
                          keep_in_background=True)
    assert runner.kept_pending and not keep_writer._STATE.queue  # held: not given to the writer yet
    assert _files(tmp_path / "run") == {}
    runner.run(np.zeros(runner.input_shape, runner.input_dtype))
    runner.wait_kept()
    assert len(_files(tmp_path / "run")) == 2 and not runner.kept_pending  # the plan, ACL's answers
    runner.close()
    unrun = TfliteRunner(path, model_cache=tmp_path / "unrun" / "m", facts_cache=tmp_path / "unrun" / "f",
                         keep_in_background=True)
    assert unrun.kept_pending and _files(tmp_path / "unrun") == {}
    held = [job for job, _ in unrun._kept_files._jobs]
    del unrun
    gc.collect()
    assert held and all(job.orphaned and not job.done for job in held)  # released by the next load's hold
    keep_writer.wait_all()
    assert sorted(_files(tmp_path / "unrun")) == sorted(_files(tmp_path / "run"))


def test_files_are_held_while_the_first_run_makes_its_outputs(tmp_path, monkeypatch):
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    runner = TfliteRunner(model_file("keyword_spotting"), model_cache=tmp_path / "m", facts_cache=tmp_path / "f",
                          keep_in_background=True)
    held = [job for job, _ in runner._kept_files._jobs]
    made = runner.outputs
    seen = []

    def outputs():  # the first result's outputs: the files still held, the writer not started by this load
        seen.append(all(job in keep_writer._STATE.held for job in held))
        return made()

    monkeypatch.setattr(runner, "outputs", outputs)
    x = np.zeros(runner.input_shape, runner.input_dtype)
    first = runner.run(x)
    assert held and seen == [True]
    assert not any(job in keep_writer._STATE.held for job in held)  # released once run() made them
    runner.wait_kept()
    assert len(_files(tmp_path)) == 2 and not runner.kept_pending
    second = runner.run(x)
    assert seen == [True, False] and first.keys() == second.keys()  # (written by then)
    runner.close()


def test_a_failed_write_is_the_caches_warning_at_the_wait(tmp_path, monkeypatch):
    import acl_bridge.facts_cache as fc
    from acl_bridge.facts_cache import FactsCacheWarning
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner

    def full(path, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fc, "write_atomically", full)
    with warnings.catch_warnings(record=True) as during:
        warnings.simplefilter("always")
        r = TfliteRunner(model_file("face_detection_front"), model_cache=tmp_path / "m", facts_cache=tmp_path / "f")
    assert not [w for w in during if issubclass(w.category, FactsCacheWarning)]  # the write comes after the load
    with pytest.warns(FactsCacheWarning, match="cannot write the facts cache .*No space left on device"):
        r.close()  # waits for the kept files
    assert r.facts_cache.saved == 0 and "not saved" in r.facts_cache.reason
    assert os.listdir(tmp_path / "m")  # the plan was kept
