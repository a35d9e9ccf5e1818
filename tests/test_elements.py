"""Issue 26 (the NdArray part): what a numpy user expects of an NdArray, each line of the
issue as a test, against numpy on the same values.

Elements are numpy scalars; ``print`` shows the elements; numpy's attributes and methods
mean numpy's thing; copies copy; ``readonly`` is kept everywhere; keywords a call does not
take are refused naming them. The write paths and the bytes they must leave alone are the
catalogue's (tests/test_catalogue_ndarray.py)."""

from __future__ import annotations

import copy
import operator
import pickle

import sys

import numpy as np
import pytest

from ndarray import (
    AclNdarrayError,
    ArgumentTypeError,
    NdArray,
    NotRepresentableError,
    ReadOnlyError,
    ShapeDescriptor,
    UnsupportedOptionError,
)


def _layouts():
    """(name, NdArray, numpy twin): the same values in five layouts."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    padded = NdArray.zeros((3, 4), paddings=(2, 3), padding_offsets=(1, 2))
    padded[...] = x
    big = np.arange(60, dtype=np.float32).reshape(6, 10)
    sliced = NdArray.from_numpy(big)[1:4, 3:7]
    transposed = NdArray.from_numpy(np.ascontiguousarray(x.T)).T
    stepped = NdArray.from_numpy(np.arange(24, dtype=np.float32).reshape(3, 8))[:, ::2]
    return [("dense", NdArray.from_numpy(x.copy()), x), ("padded", padded, x),
            ("slice-of-user-array", sliced, big[1:4, 3:7]), ("transpose", transposed, x),
            ("step-slice", stepped, np.arange(24, dtype=np.float32).reshape(3, 8)[:, ::2])]


LAYOUTS = _layouts()
IDS = [name for name, _, _ in LAYOUTS]


# ---------------------------------------------------------------------------- elements
@pytest.mark.parametrize("name, a, x", LAYOUTS, ids=IDS)
def test_every_element_is_numpys_scalar(name, a, x):
    for index in np.ndindex(*x.shape):
        got = a[index]
        assert type(got) is type(x[index]) is np.float32 and got == x[index], index
    assert type(a[-1, -1]) is np.float32 and a[-1, -1] == x[-1, -1]  # negative indices, as numpy


def test_elements_work_where_python_wants_a_number():
    a = NdArray.from_numpy(np.arange(12, dtype=np.float64).reshape(3, 4) / 3)
    ia = NdArray.from_numpy(np.arange(5, dtype=np.int64))
    assert f"{a[1, 2]:.2f}" == "2.00" and round(a[1, 2]) == 2 and round(a[0, 1], 3) == 0.333
    assert [10, 20][ia[1]] == 20 and list(range(ia[2])) == [0, 1]
    assert 1.0 in NdArray.from_numpy(np.arange(4.0)) and 2.0 in a and 99.0 not in a
    assert f"{NdArray.from_numpy(np.array(1.5))[...]:.1f}" == "1.5"  # 0-d: numpy formats the element
    assert operator.index(NdArray.from_numpy(np.array(3))[...]) == 3  # a 0-d integer array is an index
    with pytest.raises(TypeError):
        operator.index(a)  # numpy's refusal, as for a float array


def test_zero_d_views_keep_numpys_rules():
    a = NdArray.from_numpy(np.arange(6.0).reshape(2, 3))
    v = a[1, 2, ...]  # numpy: x[1, 2, ...] is a 0-d view
    assert isinstance(v, NdArray) and v.shape == () and float(v) == 5.0
    v[...] = 50
    assert a[1, 2] == 50
    zero_d = NdArray(())
    assert type(zero_d[()]) is np.float32  # numpy: x[()] of a 0-d array is the element


def test_element_read_is_cheap():
    """The element read is numpy's indexing plus one Python call, never the 0-d NdArray view
    it once cost (hundreds of times numpy's; benchmarks/bench.py --sections elements times it).
    Counted, not timed: the Python functions and the builtins an element read calls."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = NdArray.from_numpy(x)
    events = []

    def profile(frame, event, arg):
        events.append((event, arg.__name__ if event.startswith("c_") else frame.f_code.co_name))

    for key in ((1, 2), (-1, 0)):
        events.clear()
        sys.setprofile(profile)
        try:
            v = a[key]
        finally:
            sys.setprofile(None)
        assert type(v) is np.float32 and v == x[key]
        calls = [e for e in events if e[0] in ("call", "c_call") and e[1] != "setprofile"]
        assert calls == [("call", "__getitem__")], events


# ---------------------------------------------------------------------------- display
@pytest.mark.parametrize("name, a, x", LAYOUTS, ids=IDS)
def test_print_shows_the_elements_as_numpy(name, a, x):
    assert str(a) == str(x) and f"{a}" == str(x) and a.to_string() == str(x)
    assert repr(a).startswith("NdArray(ShapeDescriptor(float32[")  # repr stays the compact descriptor


def test_to_string_shows_padding_on_request():
    a = NdArray.full((2, 2), 1, paddings=(1, 2), padding_offsets=(0, 1))
    assert a.to_string(show_padding=True) == ("[[(0.)  1.   1.  (0.)]\n"
                                              " [(0.)  1.   1.  (0.)]\n"
                                              " [(0.) (0.) (0.) (0.)]]")
    # memory from numpy: the "padding" is the user's other elements, shown as cells outside
    s = NdArray.from_numpy(np.arange(9).reshape(3, 3))[1:, 1:]
    assert s.to_string(show_padding=True) == "[[(0) (1) (2)]\n [(3)  4   5 ]\n [(6)  7   8 ]]"
    # an explicit layout: the allocation in one line
    assert NdArray.from_numpy(np.arange(4))[::2].to_string(show_padding=True) == "[ 0  (1)  2  (3)]"
    # order 'f': the padded grid read in the buffer's own order
    f = NdArray((2, 3), "int8", "f", paddings=(1, 0))
    assert f.to_string(show_padding=True) == "[[ 0   0   0 ]\n [ 0   0   0 ]\n [(0) (0) (0)]]"
    big = NdArray.zeros((40, 50), paddings=(2, 2))
    assert "..." in big.to_string(show_padding=True)  # numpy summarises, as print does
    with pytest.raises(ArgumentTypeError, match=r"to_string\(\) got unknown keyword argument 'padding'"):
        a.to_string(padding=True)


# ---------------------------------------------------------------------------- numpy attributes and methods
@pytest.mark.parametrize("name, a, x", LAYOUTS, ids=IDS)
def test_attributes_mean_numpys_thing(name, a, x):
    view = a.numpy()  # the same memory as a numpy array: its strides and flags are a's
    assert a.strides == view.strides and a.strides == a.descriptor.strides_in_bytes  # bytes, as numpy
    assert a.descriptor.strides == tuple(s // 4 for s in view.strides)  # the descriptor's: elements
    if name in ("dense", "slice-of-user-array", "step-slice"):  # the user's own memory: x's strides
        assert a.strides == x.strides
    for flag in ("c_contiguous", "f_contiguous", "aligned"):
        assert getattr(a.flags, flag) == getattr(view.flags, flag), flag
    assert a.flags["C_CONTIGUOUS"] == view.flags["C_CONTIGUOUS"] and a.flags.writeable
    assert bytes(a) == x.tobytes() == a.tobytes()
    np.testing.assert_array_equal(a.clip(2, 7), x.clip(2, 7))
    np.testing.assert_array_equal((a / 3).round(2), (x / 3).round(2))
    np.testing.assert_array_equal(a.argsort(axis=None), x.argsort(axis=None))
    np.testing.assert_array_equal(a.cumprod(), x.cumprod())
    np.testing.assert_array_equal(a.take([0, 2]), x.take([0, 2]))
    assert a.trace() == x.trace()


def test_flags_are_a_snapshot_that_refuses_to_be_set():
    a = NdArray((2, 3))
    with pytest.raises(ReadOnlyError, match=r"flags.writeable cannot be set"):
        a.flags.writeable = False
    with pytest.raises(ReadOnlyError, match=r"flags.WRITEABLE cannot be set"):
        a.flags["WRITEABLE"] = False
    assert not NdArray((2, 3), readonly=True).flags.writeable
    with pytest.raises(KeyError):
        a.flags["OWNDATA_X"]


def test_views_squeeze_swapaxes_view_real_imag():
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    a = NdArray.from_numpy(x)
    for got, want in [(a.squeeze(), x.squeeze()), (a.squeeze(0), x.squeeze(0)), (a.swapaxes(1, 2), x.swapaxes(1, 2)),
                      (a.view(), x), (a.view(np.int32), x.view(np.int32)), (a.real, x)]:
        assert isinstance(got, NdArray) and np.shares_memory(got.numpy(), x)
        np.testing.assert_array_equal(got.numpy(), want)
    assert type(a.view(np.ndarray)) is np.ndarray and np.shares_memory(a.view(np.ndarray), x)
    np.testing.assert_array_equal(a.imag, x.imag)
    z = np.arange(6).astype(np.complex64) * (1 + 2j)
    c = NdArray.from_numpy(z)
    assert isinstance(c.real, NdArray) and isinstance(c.imag, NdArray)
    np.testing.assert_array_equal(c.real.numpy(), z.real)
    np.testing.assert_array_equal(c.imag.numpy(), z.imag)
    c.imag[...] = 0  # a view: writes the imaginary parts of c
    np.testing.assert_array_equal(z.imag, 0)
    half = NdArray.from_numpy(np.arange(4, dtype=np.int32)).view(np.int16)
    assert half.shape == (8,) and half.descriptor.dtype == np.int16
    assert a.view(np.uint8).shape == (1, 2, 12) and not a.view(np.int32).padding_is_free


def test_sort_and_partition_work_in_place_on_the_elements():
    x = np.array([[3, 1, 2], [9, 7, 8]], dtype=np.int32)
    padded = NdArray.full((2, 3), 0, "int32", paddings=(1, 1), padding_value=-5)
    padded[...] = x
    padded.sort()
    np.testing.assert_array_equal(padded.numpy(), np.sort(x))
    assert (padded.buffer()[padded.padding_mask()] == -5).all()
    padded.partition(1, axis=1)
    assert padded[0, 1] == 2


def test_dtype_none_is_numpys_float64_everywhere():
    assert np.dtype(None) == np.float64
    assert ShapeDescriptor((2,), None).dtype == np.float64
    assert NdArray((2,), dtype=None).dtype == np.float64 == NdArray((2,), None).dtype
    assert NdArray((2,)).dtype == np.float32  # not given: the library's default (ACL's float32)
    assert NdArray((2,)).astype(None).dtype == np.float64
    assert NdArray.empty((2,), None).dtype == np.float64


def test_astype_follows_numpy():
    a = NdArray.from_numpy(np.array([1.7, -2.2]))
    np.testing.assert_array_equal(a.astype(np.int32).numpy(), np.array([1.7, -2.2]).astype(np.int32))
    assert a.astype(np.float64, copy=False) is a and a.astype(np.float64) is not a
    assert a.astype(np.float32, order="F").descriptor.order in ("c", "f")
    with pytest.raises(TypeError, match="Cannot cast"):  # numpy's refusal
        a.astype(np.int32, casting="safe")


# ---------------------------------------------------------------------------- copies
@pytest.mark.parametrize("name, a, x", LAYOUTS, ids=IDS)
@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy, NdArray.copy,
                                 lambda a: pickle.loads(pickle.dumps(a))], ids=["copy", "deepcopy", "method", "pickle"])
def test_copies_copy(name, a, x, how):
    twin = x.copy()
    c = how(a)
    assert isinstance(c, NdArray) and not np.shares_memory(c.allocation, a.allocation)
    np.testing.assert_array_equal(c.numpy(), x)
    c.fill(-1)
    np.testing.assert_array_equal(a.numpy(), twin)  # the original is untouched
    assert c.padding_is_free  # a fresh allocation of the library


def test_copy_orders_and_readonly():
    a = NdArray.from_numpy(np.arange(6.0).reshape(2, 3))
    assert a.copy().descriptor.order == "c" and a.copy("F").descriptor.order == "f"
    assert a.T.copy("K").descriptor.order == "f" and a.copy("A").descriptor.order == "c"
    with pytest.raises(UnsupportedOptionError, match=r"order is 'Z', expected one of 'C', 'F', 'A', 'K'"):
        a.copy("Z")
    ro = NdArray.from_numpy(np.broadcast_to(np.float32(2), (2, 2)))
    assert not copy.copy(ro).readonly  # numpy: a copy is writeable
    assert pickle.loads(pickle.dumps(ro)).readonly  # a pickle gives back what was pickled


# ---------------------------------------------------------------------------- readonly
def test_readonly_is_kept():
    a = NdArray((2, 3), readonly=True)
    assert a.readonly and "readonly" in repr(a)
    for view in (a.numpy(), np.asarray(a), a.buffer(), a.allocation, a[0].numpy(), a.T.numpy(), a.view().numpy()):
        assert not view.flags.writeable
        with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True"):
            view.flags.writeable = True  # numpy refuses to flip it back
    assert not a.padding_is_free  # nothing of it may be written, padding neither


def test_readonly_over_writeable_user_memory_stays_readonly():
    x = np.arange(6, dtype=np.float32)
    a = NdArray(x.view(np.uint8), ShapeDescriptor((6,), "float32"), readonly=True)
    with pytest.raises(ValueError, match="cannot set WRITEABLE flag to True"):
        a.numpy().flags.writeable = True
    with pytest.raises(ReadOnlyError):
        a[0] = 1
    assert x[0] == 0 and x.flags.writeable  # the user's own array keeps its own flag


# ---------------------------------------------------------------------------- keywords
@pytest.mark.parametrize("call, keyword", [
    (lambda: NdArray((2, 3), owns_padding=True), "owns_padding"),
    (lambda: NdArray((2, 3), readonly=True, colour=1), "colour"),
    (lambda: NdArray.zeros((2, 3), padings=(1, 1)), "padings"),
    (lambda: NdArray.empty((2, 3), strides=(3, 1)), "strides"),
    (lambda: NdArray.from_numpy(np.zeros(3), copy=False), "copy"),
    (lambda: NdArray((2,)).copy(deep=True), "deep"),
    (lambda: NdArray((2,)).astype("int8", subok=False), "subok"),
    (lambda: NdArray((2,)).contiguous(memory_format="channels_last"), "memory_format"),
    (lambda: NdArray(np.zeros(8, np.uint8), ShapeDescriptor((2,)), dtype="float32"), "dtype"),
    (lambda: NdArray.allocate(ShapeDescriptor((2,)), alignment=64), "alignment"),
])
def test_unknown_keywords_are_refused_naming_them(call, keyword):
    with pytest.raises(ArgumentTypeError, match=rf"'?{keyword}'?") as info:
        call()
    assert isinstance(info.value, TypeError) and isinstance(info.value, AclNdarrayError)


def test_views_that_need_a_copy_are_refused():
    a = NdArray.from_numpy(np.arange(5, dtype=np.int8))[1:4]  # 3 bytes at byte 1
    with pytest.raises(ValueError):  # numpy's own refusal: 3 bytes are not int16s
        a.view(np.int16)
    b = NdArray.from_numpy(np.arange(4, dtype=np.int8))[1:3]  # int16 at byte 1: not whole int16s of the allocation
    with pytest.raises(NotRepresentableError, match=r"not whole 2-byte elements"):
        b.view(np.int16)
