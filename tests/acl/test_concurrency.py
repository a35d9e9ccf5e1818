"""Several Python threads running ACL functions at once (issue 6, part 5).

The promise: any number of threads may run functions concurrently, on different function
objects and on the same one; results are never corrupted, nothing deadlocks, and a function
object serialises its own runs (in the native layer; for a staged plan the staging copies,
the native run and the copy-back form one critical section); ``close()`` during a run never
frees memory that run uses.

Every scenario runs in its own subprocess (crash isolation: a segfault or a deadlock fails
that test, not the suite), with a hard time limit; threads are joined with a timeout, so a
deadlock is reported as one. Run one by hand with ``python tests/acl/test_concurrency.py NAME``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
F32 = np.float32
THREADS = 4
RUNS = int(os.environ.get("ACL_NDARRAY_CONCURRENCY_RUNS", "6"))  # per thread
JOIN_TIMEOUT = 120.0  # seconds for all threads: beyond that it is a deadlock
SUBPROCESS_TIMEOUT = 400.0


def _functions():
    from acl_bridge import functions

    return functions


def _run_threads(targets, timeout=JOIN_TIMEOUT):
    """Start one thread per callable behind a barrier; re-raise the first error; fail on a hang."""
    barrier = threading.Barrier(len(targets))
    errors = []

    def wrap(fn):
        def body():
            try:
                barrier.wait(timeout)
                fn()
            except BaseException as e:  # noqa: BLE001  reported below
                errors.append(e)
        return body

    threads = [threading.Thread(target=wrap(fn), daemon=True) for fn in targets]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    alive = [t for t in threads if t.is_alive()]
    assert not alive, f"DEADLOCK: {len(alive)} of {len(threads)} threads still running after {timeout} s"
    if errors:
        raise errors[0]


# ---------------------------------------------------------------------------- scenarios
def scenario_different_functions():
    """Each thread its own functions on its own buffers; every run checked against numpy.
    Half the threads have small functions (they keep the GIL during runs), half large ones
    (they release it, so their native runs overlap)."""
    fn = _functions()
    rng = np.random.default_rng(1)

    def worker(seed, big):
        r = np.random.default_rng(seed)
        k = 8 if big else 1  # 8: every function's tensors exceed GIL_HELD_MAX_BYTES
        a = r.standard_normal((8 * k, 12 * k)).astype(F32)
        b = r.standard_normal((12 * k, 6 * k)).astype(F32)
        x = r.standard_normal((4 * k, 16 * k)).astype(F32)
        gemm_dst = np.empty((8 * k, 6 * k), F32)
        add_dst = np.empty(x.shape, F32)
        sm_dst = np.empty(x.shape, F32)
        act_dst = np.empty(x.shape, F32)
        fs = [fn.Gemm(a, b, None, gemm_dst), fn.Add(x, x, add_dst), fn.Softmax(x, sm_dst),
              fn.Activation(x, act_dst, "relu")]
        # big: every run releases the GIL; small: the zero-copy ones keep it (a staged one,
        # e.g. 20.08's small GEMM, releases it in cffi's call)
        assert all(f.releases_gil == (big or bool(f.staged)) for f in fs), [(f.kind, f.releases_gil) for f in fs]
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        expected = [(gemm_dst, a @ b, 1e-4), (add_dst, x + x, 0), (sm_dst, e / e.sum(axis=-1, keepdims=True), 1e-5),
                    (act_dst, np.maximum(x, 0), 0)]

        def body():
            for _ in range(RUNS):
                for f, (dst, want, tol) in zip(fs, expected):
                    dst[...] = np.nan
                    f.run()
                    np.testing.assert_allclose(dst, want, rtol=tol, atol=tol)
            for f in fs:
                f.close()
        return body

    _run_threads([worker(int(s), i % 2 == 1) for i, s in enumerate(rng.integers(0, 2**31, THREADS))])


def scenario_same_function():
    """Every thread runs the SAME function objects (one of them staged through a copy); both
    release the GIL during runs (the GEMM's 44 KiB exceed GIL_HELD_MAX_BYTES), so runs from
    different threads reach the native layer together and are serialised there."""
    fn = _functions()
    r = np.random.default_rng(2)
    a = r.standard_normal((64, 96)).astype(F32)
    b = r.standard_normal((96, 32)).astype(F32)
    gemm_dst = np.empty((64, 32), F32)
    big = r.standard_normal((6, 32)).astype(F32)
    x = big[:, ::2]  # innermost stride 8 bytes: staged through an ACL-padded copy
    act_dst = np.empty((6, 16), F32)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gemm = fn.Gemm(a, b, None, gemm_dst)
        act = fn.Activation(x, act_dst, "abs")
    assert gemm.releases_gil and act.releases_gil

    def body():
        for _ in range(RUNS):
            gemm.run()
            act.run()
            np.testing.assert_allclose(gemm_dst, a @ b, rtol=1e-4, atol=1e-4)
            np.testing.assert_array_equal(act_dst, np.abs(x))

    _run_threads([body] * THREADS)
    assert act.staged == ("src",) and act.copy_count == RUNS * THREADS, (act.staged, act.copy_count)
    gemm.close()
    act.close()


def scenario_shared_input():
    """Functions on different threads read one input buffer and write their own outputs
    (48 KiB each: runs release the GIL and overlap)."""
    fn = _functions()
    x = ((np.arange(64 * 96, dtype=F32) % 61) - 30).reshape(64, 96)
    funcs = ["relu", "abs", "square", "logistic"]
    oracle = {"relu": lambda v: np.maximum(v, 0), "abs": np.abs, "square": np.square,
              "logistic": lambda v: 1 / (1 + np.exp(-v))}

    def worker(name):
        dst = np.empty_like(x)
        f = fn.Activation(x, dst, name)
        assert f.releases_gil

        def body():
            for _ in range(RUNS):
                dst[...] = np.nan
                f.run()
                np.testing.assert_allclose(dst, oracle[name](x), rtol=1e-5, atol=1e-6)
            f.close()
        return body

    before = x.copy()
    _run_threads([worker(n) for n in funcs])
    np.testing.assert_array_equal(x, before)


def scenario_function_serialises_its_runs():
    """Every thread runs ONE in-place accumulation (x += 1, 1 MiB) a few times. Runs are
    serialised by the native layer, so no increment is lost: x ends at exactly
    threads * runs. Overlapping runs (read-modify-write on the same elements from two
    cores; the GIL is released during the native call) would lose increments. One ACL
    thread: ACL's multi-threaded scheduler serialises workloads of its own, which would
    hide overlapping runs; with one thread each run executes on its caller's thread."""
    from acl_bridge.native import set_num_threads

    fn = _functions()
    set_num_threads(1)
    x = np.zeros((256, 1024), F32)
    one = np.ones_like(x)
    f = fn.Add(x, one, x)
    assert f.releases_gil  # 3 MiB of tensors, far above GIL_HELD_MAX_BYTES: runs could overlap
    _run_threads([lambda: [f.run() for _ in range(RUNS)]] * THREADS)
    lost = int(np.count_nonzero(x != THREADS * RUNS))
    assert lost == 0, (f"{lost} elements are not {THREADS * RUNS} after {THREADS}x{RUNS} runs of one in-place "
                       f"add (values {np.unique(x)[:8]}): runs of one function object overlapped")
    f.close()


def scenario_close_during_run():
    """close() while another thread's run is inside the native call: that run completes on
    intact memory with the right result; the buffers are released when it returns; a run
    after close() raises.

    The interleaving is forced, not slept for (issue 41): a zero-copy run takes its own
    reference to the function's native handle (the ``owner`` of native/native_call.c) before
    it releases the GIL and drops it only after taking the GIL back, so while this thread holds
    the GIL and sees the handle's reference count one above its resting count, the other
    thread is inside its native call; close() is made exactly then. A run that returned
    before this thread looked (a fast machine) is not counted; two runs with a close inside
    them are required in 8 tries."""
    import gc
    import weakref

    from acl_bridge.native import AclError
    from ndarray import NdArray

    fn = _functions()
    x = np.linspace(-1, 1, 1 << 21, dtype=F32).reshape(2048, 1024)
    want = np.maximum(x, 0)
    during = 0
    for _ in range(8):
        src = NdArray.from_numpy(x.copy())
        dst = np.full_like(x, np.nan)
        f = fn.Activation(src, dst, "relu")
        assert f.releases_gil, "a run that keeps the GIL cannot be interrupted by close(): the scenario needs one"
        handle = f._configured.handle  # the run's owner
        resting = sys.getrefcount(handle)
        src_alive = weakref.ref(src)
        del src  # from here only the function (and a run of it) holds the input buffer
        go, errors, returned = threading.Event(), [], threading.Event()

        def runner(f=f, go=go, errors=errors, returned=returned):
            go.wait(30)
            try:
                f.run()
            except BaseException as e:  # noqa: BLE001  reported below
                errors.append(e)
            returned.set()

        t = threading.Thread(target=runner, daemon=True)
        t.start()
        go.set()
        inside = False
        while not returned.is_set():  # the GIL is ours between checks: what we see holds at close()
            if sys.getrefcount(handle) == resting + 1:
                inside = True
                f.close()  # the run holds its reference: it is between its INCREF and DECREF
                break
            time.sleep(0)  # hand the GIL over (the runner takes it to start its run)
        del handle
        if not inside:
            f.close()
        t.join(60)
        assert not t.is_alive(), "DEADLOCK between run() and close()"
        if inside:  # close() landed inside the run: the run completes on intact memory
            assert not errors, errors[0]
            np.testing.assert_array_equal(dst, want)
            during += 1
        elif errors:  # close() came first: the run must say so
            assert isinstance(errors[0], AclError) and "closed" in str(errors[0]), errors[0]
        else:
            np.testing.assert_array_equal(dst, want)
        gc.collect()
        assert src_alive() is None, "the input buffer outlived the function and its last run"
        try:
            f.run()
        except AclError as e:
            assert "closed" in str(e)
        else:
            raise AssertionError("run() after close() did not raise")
        if during >= 2:
            break
    assert during >= 2, f"close() landed inside a run in {during} of 8 tries (each run returned before it was seen)"


SCENARIOS = {name[len("scenario_"):]: obj for name, obj in dict(globals()).items() if name.startswith("scenario_")}

# Scenarios waiting for a library fix: name -> the fix (strict xfail). None today.
_EXPECTED_FIX = {}


def _params():
    out = []
    for name in SCENARIOS:
        marks = [pytest.mark.acl]
        if name in _EXPECTED_FIX:
            marks.append(pytest.mark.xfail(strict=True, reason=f"library fix needed: {_EXPECTED_FIX[name]}"))
        out.append(pytest.param(name, id=name, marks=marks))
    return out


@pytest.mark.parametrize("name", _params())
def test_concurrency(name):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__), name],
                              capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, env=env, cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        raise AssertionError(f"{name}: DEADLOCK or hang, killed after {SUBPROCESS_TIMEOUT} s:\n{e.stderr}") from None
    output = (proc.stdout + proc.stderr)[-4000:]
    assert proc.returncode >= 0, f"{name}: subprocess CRASHED with signal {-proc.returncode}:\n{output}"
    assert proc.returncode == 0, f"{name}: failed (exit {proc.returncode}):\n{output}"


def _main(argv):
    if len(argv) != 1 or argv[0] not in SCENARIOS:
        print(f"usage: {sys.argv[0]} SCENARIO; one of {', '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        SCENARIOS[argv[0]]()
    except BaseException as e:  # noqa: BLE001
        import traceback
        traceback.print_exc()
        print(f"{argv[0]}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"{argv[0]}: ok in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    if ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    sys.exit(_main(sys.argv[1:]))
