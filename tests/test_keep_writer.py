"""The background writer of kept files (acl_bridge.keep_writer): jobs in order, results and
warnings on the caller's thread at wait (never on the writer's, never lost), a read of a path
waiting for its pending write, the interpreter waiting at exit, a fork's child waiting for
nothing; and the kept plan and answers written later byte for byte as written at once."""

import functools
import os
import subprocess
import sys
import textwrap
import threading
import warnings

import pytest

import acl_bridge
from acl_bridge import keep_writer
from acl_bridge.configure_session import ConfigureSession, encode_answers
from acl_bridge.user_cache import read_trusted, write_atomically
from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(acl_bridge.__file__)))


class KeptTestWarning(UserWarning):
    pass


def _gate():
    """A job that holds the writer until the returned event is set: what is given after it is
    pending for sure."""
    gate = threading.Event()

    def hold():
        gate.wait()
        return None, ()

    keep_writer.submit([], hold, KeptTestWarning)
    return gate


def _write(path, data: bytes, result="written", problems=()):
    write_atomically(path, data)
    return result, problems


@pytest.fixture(autouse=True)
def _writer_idle():
    yield
    keep_writer.wait_all()


def test_jobs_end_in_order_with_their_results(tmp_path):
    gate = _gate()
    order = []

    def write(k):
        order.append(k)
        return _write(tmp_path / f"{k}.bin", bytes([k]))

    jobs = [keep_writer.submit([tmp_path / f"{k}.bin"], functools.partial(write, k), KeptTestWarning)
            for k in range(3)]
    assert all(keep_writer.pending(tmp_path / f"{k}.bin") for k in range(3)) and not any(j.done for j in jobs)
    assert not any((tmp_path / f"{k}.bin").exists() for k in range(3))
    gate.set()
    assert [j.wait() for j in jobs] == ["written"] * 3 and order == [0, 1, 2]
    assert [(tmp_path / f"{k}.bin").read_bytes() for k in range(3)] == [b"\x00", b"\x01", b"\x02"]
    assert not any(keep_writer.pending(tmp_path / f"{k}.bin") for k in range(3))


def test_warnings_are_issued_at_wait_on_the_callers_thread_once(tmp_path):
    job = keep_writer.submit([tmp_path / "f"], lambda: ("not kept", (KeptTestWarning("the disk is full"),)),
                             KeptTestWarning)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        keep_writer.wait_all()  # ended: its warning is held, not issued on the writer's thread
    assert job.done and seen == []
    with pytest.warns(KeptTestWarning, match="the disk is full") as caught:
        assert job.wait() == "not kept"
    assert caught[0].filename == __file__  # the caller's line (stacklevel 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert job.wait() == "not kept"  # taken once


@pytest.mark.parametrize("error", [ValueError("no plain form"), SystemExit("a job that exits")],
                         ids=["exception", "base exception"])
def test_an_exception_of_a_job_is_its_warning_naming_it(tmp_path, error):
    """Any exception of a job, a BaseException too (SystemExit), is its warning; the writer goes on."""
    def fails():
        raise error

    job = keep_writer.submit([tmp_path / "f"], fails, KeptTestWarning)
    with pytest.warns(KeptTestWarning, match=rf"could not keep .*f: {type(error).__name__}: {error}"):
        assert job.wait() is None
    later = keep_writer.submit([tmp_path / "g"], functools.partial(_write, tmp_path / "g", b"g"), KeptTestWarning)
    assert later.wait() == "written" and not keep_writer.pending(tmp_path / "g")  # the writer goes on


def test_a_read_waits_for_the_pending_write_of_its_path(tmp_path):
    path = tmp_path / "cache" / "kept.bin"
    gate = _gate()
    keep_writer.submit([path], functools.partial(_write, path, b"kept later"), KeptTestWarning)
    assert keep_writer.pending(path) and not path.exists()
    gate.set()
    assert bytes(read_trusted(path)) == b"kept later"  # (no wait_all: the read waited for it)


def test_in_the_foreground_a_job_ends_at_once(tmp_path):
    job = keep_writer.run_here([tmp_path / "f"], functools.partial(_write, tmp_path / "f", b"now"), KeptTestWarning)
    assert job.done and (tmp_path / "f").read_bytes() == b"now" and job.wait() == "written"


def _python(script: str, *args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=300)


def test_the_interpreter_waits_for_pending_files_at_exit(tmp_path):
    """A program that exits right after giving its files: they are written, and the warning
    nobody took is issued at exit."""
    r = _python("""
        import sys, time, pathlib
        from acl_bridge import keep_writer
        from acl_bridge.user_cache import write_atomically
        path = pathlib.Path(sys.argv[1])
        def slow():
            time.sleep(0.5)  # still writing when the main thread ends
            write_atomically(path, b"written before exit")
            return None, (UserWarning("a warning nobody took"),)
        keep_writer.submit([path], slow, UserWarning)
        """, tmp_path / "kept.bin")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "kept.bin").read_bytes() == b"written before exit"
    assert "UserWarning: a warning nobody took" in r.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["kept.bin"]  # no temporary file left


def test_a_forked_child_waits_for_nothing_and_the_parent_writes(tmp_path):
    r = _python("""
        import os, sys, threading, pathlib, warnings
        warnings.simplefilter("ignore", DeprecationWarning)  # (fork with a thread running: on purpose)
        from acl_bridge import keep_writer
        from acl_bridge.user_cache import write_atomically
        path = pathlib.Path(sys.argv[1])
        gate = threading.Event()
        keep_writer.submit([], lambda: (gate.wait(), (None, ()))[1], UserWarning)
        job = keep_writer.submit([path], lambda: (write_atomically(path, b"parent"), ("parent wrote", ()))[1],
                                 UserWarning)
        pid = os.fork()
        if pid == 0:
            keep_writer.wait_for(path)  # at once: the child has no writer
            ok = job.done and job.forked and job.wait() is None and not keep_writer.pending(path)
            sys.exit(0 if ok and not path.exists() else 3)  # a clean exit: nothing to join
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])  # the child's checks before the parent writes
        gate.set()
        print(job.wait(), code)
        """, tmp_path / "kept.bin")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["parent", "wrote", "0"]
    assert (tmp_path / "kept.bin").read_bytes() == b"parent"


def test_a_sessions_kept_answers_are_a_snapshot():
    """What a load keeps is taken when it ends: encoded later, after the session forgot them
    and was asked more, it is what its answers were."""
    s = ConfigureSession()
    for k in range(3):
        s.ask("probe", lambda k=k: ("kind", k), lambda k=k: ((k, k + 1), True))
    s.ask("check_layouts", lambda: ("kind", b"\x01"), lambda: True)
    kept = s.kept()
    s.ask("probe", lambda: ("kind", 9), lambda: ((9, 9), False))
    now = s.answers()
    s.forget()
    later = encode_answers(kept)
    assert {c: len(a) for c, a in later.items()} == {"probe": 3, "check_layouts": 1}
    assert all(now[c][q] == v for c, a in later.items() for q, v in a.items())


def test_the_runners_option_and_environment(monkeypatch):
    from acl_bridge.models.runtime.kept_answers import FOREGROUND_ENV, keeps_in_background

    monkeypatch.delenv(FOREGROUND_ENV, raising=False)
    assert keeps_in_background(None) and keeps_in_background(True) and not keeps_in_background(False)
    monkeypatch.setenv(FOREGROUND_ENV, "1")
    assert not keeps_in_background(None) and keeps_in_background(True)
    monkeypatch.setenv(FOREGROUND_ENV, "yes")
    with pytest.raises(UnsupportedOptionError, match=r"ACL_NDARRAY_KEEP_IN_FOREGROUND is 'yes', expected 1"):
        keeps_in_background(None)
    with pytest.raises(ArgumentTypeError, match=r"keep_in_background is 'later', expected True, False or None"):
        keeps_in_background("later")


def test_a_plan_kept_later_is_the_file_kept_at_once(tmp_path):
    """The lowered plan's job (PlanCache.keep) on the writer gives the file save() writes at
    once, byte for byte, and a read of it waits for it."""
    pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
    from acl_bridge.models.apps import fetch
    from acl_bridge.models.format.model_cache import ModelCacheWarning
    from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model
    from acl_bridge.models.planning import plan_cache as pc
    from acl_bridge.models.planning.tflite_plan import plan_model

    try:
        data = fetch.model_path("face_detection_front").read_bytes()
    except fetch.FetchError as e:
        pytest.skip(str(e))
    plan = plan_model(fold_constant_dequantize(read_model(data)))
    now, later = pc.PlanCache(data, tmp_path / "now"), pc.PlanCache(data, tmp_path / "later")
    assert now.save(plan) == "plan kept"
    gate = _gate()
    job = keep_writer.submit([later.path], functools.partial(later.keep, plan), ModelCacheWarning)
    assert not later.path.exists()
    gate.set()
    kept, _, _, _ = pc.read_plan_cached(data, tmp_path / "later")  # waits for the write
    assert kept is not None and pc.same_plan(kept, plan)
    assert job.wait() == "plan kept" and later.path.read_bytes() == now.path.read_bytes()


def test_warnings_as_errors_lose_no_result_and_no_warning(tmp_path):
    """settle hands every result over before it issues any warning; a warning raised as an
    error keeps the job's other warnings for a later wait."""
    from acl_bridge.models.runtime.kept_answers import KeptFiles

    two = (KeptTestWarning("first"), KeptTestWarning("second"))
    kept = KeptFiles(background=True)
    results = []
    kept.add([tmp_path / "a"], lambda: ("a", two), KeptTestWarning, results.append)
    kept.add([tmp_path / "b"], functools.partial(_write, tmp_path / "b", b"b", "b"), KeptTestWarning, results.append)
    kept.start()
    with warnings.catch_warnings():
        warnings.simplefilter("error", KeptTestWarning)
        with pytest.raises(KeptTestWarning, match="first"):
            kept.settle()
    assert results == ["a", "b"] and not kept.pending and (tmp_path / "b").read_bytes() == b"b"
    job = next(j for j in keep_writer._STATE.untaken if j._problems)
    with pytest.warns(KeptTestWarning, match="second"):
        assert job.wait() == "a"


def test_a_job_given_at_exit_is_written(tmp_path):
    """An atexit handler that keeps a file (after the interpreter joined its threads): the job
    runs there and then, on every Python (3.11 would start a writer that dies unjoined)."""
    r = _python("""
        import atexit, sys, pathlib
        from acl_bridge import keep_writer
        from acl_bridge.user_cache import write_atomically
        path = pathlib.Path(sys.argv[1])
        def keep_at_exit():
            job = keep_writer.submit([path], lambda: (write_atomically(path, b"at exit"), ("kept", ()))[1],
                                     UserWarning)
            print(job.done, job.wait())
        atexit.register(keep_at_exit)
        """, tmp_path / "kept.bin")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "kept"]
    assert (tmp_path / "kept.bin").read_bytes() == b"at exit"


def test_a_held_job_runs_once_released_and_a_second_release_is_nothing(tmp_path):
    path = tmp_path / "held.bin"
    job = keep_writer.hold([path], functools.partial(_write, path, b"held"), KeptTestWarning)
    assert keep_writer.pending(path) and not job.done and job not in keep_writer._STATE.queue
    assert not path.exists()
    keep_writer.release([job])
    assert job.wait() == "written" and path.read_bytes() == b"held" and not keep_writer.pending(path)
    keep_writer.release([job])  # no longer held: ignored
    assert not keep_writer._STATE.held


def test_a_read_of_a_held_path_releases_it_and_waits(tmp_path):
    path = tmp_path / "cache" / "held.bin"
    other = keep_writer.hold([tmp_path / "other.bin"], functools.partial(_write, tmp_path / "other.bin", b"o"),
                             KeptTestWarning)
    keep_writer.hold([path], functools.partial(_write, path, b"kept later"), KeptTestWarning)
    assert bytes(read_trusted(path)) == b"kept later"  # released by the read, which waited for it
    assert keep_writer.pending(tmp_path / "other.bin") and not other.done  # still held: another path
    keep_writer.wait_all()  # releases what is held
    assert other.done and (tmp_path / "other.bin").read_bytes() == b"o"


def test_held_jobs_are_written_at_exit(tmp_path):
    """A program that ends with a job still held (a runner never run): it is written at exit,
    on the main thread, and its warning issued."""
    r = _python("""
        import sys, pathlib
        from acl_bridge import keep_writer
        from acl_bridge.user_cache import write_atomically
        path = pathlib.Path(sys.argv[1])
        keep_writer.hold([path], lambda: (write_atomically(path, b"held until exit"),
                                          (None, (UserWarning("held and written"),)))[1], UserWarning)
        """, tmp_path / "kept.bin")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "kept.bin").read_bytes() == b"held until exit"
    assert "UserWarning: held and written" in r.stderr


def test_a_forked_child_ends_held_jobs_unwritten(tmp_path):
    r = _python("""
        import os, sys, pathlib
        from acl_bridge import keep_writer
        from acl_bridge.user_cache import write_atomically
        path = pathlib.Path(sys.argv[1])
        job = keep_writer.hold([path], lambda: (write_atomically(path, b"parent"), ("parent wrote", ()))[1],
                               UserWarning)
        pid = os.fork()
        if pid == 0:
            keep_writer.release([job])  # the child's copy ended unwritten: nothing to release
            ok = job.done and job.forked and not keep_writer.pending(path) and not keep_writer._STATE.held
            os._exit(0 if ok and not path.exists() else 3)
        code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
        keep_writer.release([job])
        print(job.wait(), code)
        """, tmp_path / "kept.bin")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["parent", "wrote", "0"]
    assert (tmp_path / "kept.bin").read_bytes() == b"parent"


def test_the_held_jobs_of_an_owner_gone_are_released_by_the_next_hold(tmp_path):
    import gc

    class Owner:
        pass

    owner, path = Owner(), tmp_path / "orphan.bin"
    job = keep_writer.hold([path], functools.partial(_write, path, b"orphan"), KeptTestWarning)
    keep_writer.release_when_gone(owner, [job])
    del owner
    gc.collect()  # (the callback only marks the job: it may run inside this module's critical sections)
    assert job.orphaned and not job.done and job in keep_writer._STATE.held
    later = keep_writer.hold([tmp_path / "later.bin"], functools.partial(_write, tmp_path / "later.bin", b"l"),
                             KeptTestWarning)
    assert job.wait() == "written" and path.read_bytes() == b"orphan"
    assert later in keep_writer._STATE.held and not later.done  # the new job stays held
    keep_writer.release([later])
    assert later.wait() == "written"
