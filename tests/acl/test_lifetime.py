"""Lifetimes of imported memory (issue 6, part 2).

The promise: an ACL tensor or function that imports a user's buffer keeps that buffer alive
until it is closed, even when the user drops every reference of their own; closing is
explicit (``close()``, a ``with`` block) and also happens on garbage collection; after
closing, the buffer is released and every use raises a clear error.

Each test watches the user's numpy array through a ``weakref``: alive = still imported.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from ndarray import NdArray

pytestmark = pytest.mark.acl

F32 = np.float32


def _acl():
    from acl_bridge import functions
    from acl_bridge.native import AclError
    from acl_bridge.tensor import AclTensor

    return functions, AclTensor, AclError


def _signed(shape):
    """A numpy array that owns its memory (base None), so a weakref to it tracks the memory."""
    x = (np.arange(int(np.prod(shape)), dtype=F32) - 7).reshape(shape).copy()
    assert x.base is None
    return x


def _churn():
    """Allocate and free memory so a freed buffer would likely be reused and overwritten."""
    junk = [np.full(4096, 12345.0, F32) for _ in range(64)]
    del junk
    gc.collect()


def test_tensor_keeps_numpy_array_alive_until_closed():
    _, AclTensor, _ = _acl()
    x = _signed((2, 8))
    ref = weakref.ref(x)
    t = AclTensor(NdArray.from_numpy(x))
    t_ptr = t.data_ptr
    del x
    gc.collect()
    assert ref() is not None, "the imported numpy array was freed while the tensor is open"
    assert ref().ctypes.data == t_ptr
    t.close()
    del t
    gc.collect()
    assert ref() is None, "the numpy array is still alive after the tensor was closed and dropped"


def test_tensor_keeps_ndarray_alive_until_closed():
    _, AclTensor, _ = _acl()
    a = NdArray.full((3, 5), 1.5, paddings=(1, 3), padding_offsets=(1, 1))
    ref = weakref.ref(a)
    t = AclTensor(a)
    del a
    gc.collect()
    assert ref() is not None
    t.close()
    del t
    gc.collect()
    assert ref() is None


def test_tensor_closed_on_garbage_collection():
    _, AclTensor, _ = _acl()
    x = _signed((4, 4))
    ref = weakref.ref(x)
    t = AclTensor(NdArray.from_numpy(x))
    tref = weakref.ref(t)
    del x, t  # never closed explicitly
    gc.collect()
    assert tref() is None and ref() is None


def test_tensor_context_manager_closes():
    _, AclTensor, AclError = _acl()
    a = NdArray.zeros((2, 8))
    with AclTensor(a) as t:
        assert t.handle is not None
    with pytest.raises(AclError, match="tensor is closed"):
        t.handle
    with pytest.raises(AclError, match="tensor is closed"):
        t.import_memory()
    t.close()  # closing twice is harmless


def test_function_keeps_buffers_alive_and_computes_after_user_drops_them():
    functions, _, _ = _acl()
    src = _signed((2, 8))
    expected = np.maximum(src, 0)
    dst = np.full((2, 8), -1.0, F32)
    ref = weakref.ref(src)
    f = functions.Activation(src, dst, "relu")
    del src
    _churn()
    assert ref() is not None, "Activation let its input be freed while configured on it"
    f.run()
    np.testing.assert_array_equal(dst, expected)
    f.close()
    del f
    gc.collect()
    assert ref() is None


def test_function_output_kept_alive():
    functions, _, _ = _acl()
    a, b = _signed((3, 8)), np.ones((3, 8), F32)
    dst = np.zeros((3, 8), F32)
    ref = weakref.ref(dst)
    f = functions.Add(a, b, dst)
    del dst  # the user drops the output; the result stays readable through the function
    _churn()
    assert ref() is not None
    f.run()
    np.testing.assert_array_equal(f.arrays["dst"].numpy(), a + b)
    del f
    gc.collect()
    assert ref() is None


def test_function_closed_on_garbage_collection():
    functions, _, _ = _acl()
    src, dst = _signed((2, 8)), np.zeros((2, 8), F32)
    refs = [weakref.ref(src), weakref.ref(dst)]
    f = functions.Activation(src, dst, "relu").run()
    fref = weakref.ref(f)
    del src, dst, f
    gc.collect()
    assert fref() is None
    assert [r() for r in refs] == [None, None]


def test_function_context_manager_and_run_after_close():
    functions, _, AclError = _acl()
    src, dst = _signed((2, 8)), np.zeros((2, 8), F32)
    with functions.Activation(src, dst, "relu") as f:
        f.run()
    np.testing.assert_array_equal(dst, np.maximum(src, 0))
    dst[...] = -5
    with pytest.raises(AclError, match="function is closed"):
        f.run()
    assert (dst == -5).all(), "a closed function wrote its output"
    f.close()  # idempotent


def test_closing_a_tensor_does_not_break_a_function_using_it():
    """Tensors are shared with the native function: closing the Python tensor early is safe."""
    functions, _, _ = _acl()
    src, dst = _signed((2, 8)), np.zeros((2, 8), F32)
    f = functions.Activation(src, dst, "abs")
    for t in f.tensors.values():
        t.close()
    _churn()
    f.run()
    np.testing.assert_array_equal(dst, np.abs(src))
    f.close()


def test_failed_configure_releases_everything():
    """A function whose validate() fails must not keep the buffers (nor leak native tensors)."""
    functions, _, _ = _acl()
    from acl_bridge.native import AclError

    a, b, dst = _signed((2, 8)), np.arange(16, dtype=np.int32).reshape(2, 8).copy(), np.zeros((2, 8), F32)
    refs = [weakref.ref(x) for x in (a, b, dst)]
    try:
        functions.Add(a, b, dst)
    except AclError:
        pass
    else:
        pytest.fail("Add of float32 and int32 into float32 was accepted")
    del a, b, dst
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


def test_closed_state_is_visible():
    functions, AclTensor, _ = _acl()
    t = AclTensor(NdArray.zeros((2, 8)))
    assert t.closed is False
    t.close()
    assert t.closed is True
    src, dst = _signed((2, 8)), np.zeros((2, 8), F32)
    with functions.Activation(src, dst, "relu") as f:
        assert f.closed is False
    assert f.closed is True


def test_close_releases_memory_even_if_the_object_lives_on():
    functions, AclTensor, _ = _acl()
    x = _signed((2, 8))
    ref = weakref.ref(x)
    t = AclTensor(NdArray.from_numpy(x))
    del x
    t.close()
    gc.collect()
    assert ref() is None, "a closed AclTensor still holds the user's buffer"
    src, dst = _signed((2, 8)), np.zeros((2, 8), F32)
    refs = [weakref.ref(src), weakref.ref(dst)]
    f = functions.Activation(src, dst, "relu")
    del src, dst
    f.close()
    gc.collect()
    assert [r() for r in refs] == [None, None], "a closed function still holds the user's buffers"
