"""AclFunction.run as one C method (native/native_call.c, issue 14).

AclFunction derives from NativeRun, whose ``run`` is C: for a zero-copy function it returns
the function, turns a failed status into this library's exception through
acl_bridge.native.check, refuses after close(), and keeps the GIL only for NEON functions on
little memory (GIL_HELD_MAX_BYTES); a staged function runs the Python path.
"""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

pytestmark = pytest.mark.acl

F32 = np.float32


def _activation(shape):
    from acl_bridge import functions

    x = (np.arange(int(np.prod(shape)), dtype=F32) - 7).reshape(shape)
    dst = np.full(shape, np.nan, F32)
    return functions.Activation(x, dst, "relu"), x, dst


def test_run_is_the_c_method_and_returns_the_function():
    from acl_bridge.native import NativeRun

    f, x, dst = _activation((2, 3, 4))
    assert type(f).run is NativeRun.run and f._armed
    assert f.run() is f and f() is f
    np.testing.assert_array_equal(dst, np.maximum(x, 0))


def test_staged_function_runs_the_python_path():
    from acl_bridge import functions

    big = np.linspace(-1, 1, 6 * 32, dtype=F32).reshape(6, 32)
    x = big[:, ::2]  # innermost stride 8 bytes: staged through an ACL-padded copy
    dst = np.full((6, 16), np.nan, F32)
    with pytest.warns(Warning):
        f = functions.Activation(x, dst, "abs")
    assert f.staged == ("src",) and not f._armed and f.releases_gil  # cffi's call releases it
    assert f.run() is f
    np.testing.assert_array_equal(dst, np.abs(x))
    assert f.copy_count == 1


def test_small_neon_functions_keep_the_gil_large_ones_release_it():
    from acl_bridge.executor import GIL_HELD_MAX_BYTES

    small, _, _ = _activation((1, 8, 8, 8))  # 2 x 2 KiB
    n = GIL_HELD_MAX_BYTES // 4 // 2 + 1  # just over the limit, src and dst together
    large, x, dst = _activation((n,))
    assert not small.releases_gil
    assert large.releases_gil
    large.run()
    np.testing.assert_array_equal(dst, np.maximum(x, 0))


def test_released_gil_lets_another_thread_run():
    """A long run (GIL released) does not stop a Python thread; measured by counting."""
    from acl_bridge import functions

    x = np.linspace(-1, 1, 1 << 20, dtype=F32).reshape(1, 16, 256, 256)
    dst = np.empty_like(x)
    f = functions.Activation(x, dst, "relu")
    assert f.releases_gil
    done = threading.Event()
    ticks = []

    def count():
        while not done.is_set():
            ticks.append(1)

    t = threading.Thread(target=count)
    t.start()
    try:
        before = len(ticks)
        for _ in range(3):
            f.run()
        during = len(ticks) - before
    finally:
        done.set()
        t.join()
    assert during > 0
    np.testing.assert_array_equal(dst, np.maximum(x, 0))


def test_closed_function_raises_and_leaves_the_output():
    from acl_bridge.native import AclError

    f, _, dst = _activation((4, 4))
    f.close()
    dst[...] = 5.0
    with pytest.raises(AclError, match="function is closed"):
        f.run()
    assert (dst == 5.0).all()


def test_failed_status_goes_through_check():
    """The shim's run entry point refuses a NULL function: the status and ACL's message come
    back as this library's exception, raised through acl_bridge.native.check."""
    from acl_bridge import functions
    from acl_bridge.native import AclInvalidArgumentError, arm, ffi

    f = functions.Activation.__new__(functions.Activation)  # armed by hand, on no function
    f.kind = "probe"
    arm(f, "acl_shim_function_run", ffi.NULL, release_gil=True)
    with pytest.raises(AclInvalidArgumentError, match="probe: run: function is NULL"):
        f.run()


def test_failure_that_does_not_raise_is_a_system_error():
    from acl_bridge.native import NativeRun, arm, ffi

    class Quiet(NativeRun):
        def _run_failed(self, status):
            return None

    q = Quiet()
    arm(q, "acl_shim_function_run", ffi.NULL, release_gil=False)
    with pytest.raises(SystemError, match="returned instead of raising"):
        q.run()


def test_bad_arming_is_refused():
    from acl_bridge.native import NativeRun, arm, ffi

    r = NativeRun()
    with pytest.raises(ValueError, match="function_address is 0"):
        r._arm(0, 0, object(), True)
    with pytest.raises(ValueError, match="owner is None"):
        r._arm(1, 0, None, True)
    arm(r, "acl_shim_function_run", ffi.NULL, release_gil=True)
    with pytest.raises(RuntimeError, match="already armed"):
        arm(r, "acl_shim_function_run", ffi.NULL, release_gil=True)
    r._disarm()
    assert not r._armed


def test_dropped_function_is_released():
    """No reference cycle: dropping the function releases it and its buffers at once."""
    f, x, _ = _activation((4, 4))
    ref, xref = weakref.ref(f), weakref.ref(f.arrays["src"])
    gc.disable()
    try:
        del f
        assert ref() is None
    finally:
        gc.enable()
    gc.collect()
    assert xref() is None
