"""Catalogue of bad inputs to ``ndarray/`` (issue 16, part 8; the lead's tests/test_catalogue.py
covers the rest). Each row: the call, the exception class it must raise (this library's
own, per ndarray/errors.py), and a regex on the message, which names the field, the value
and the expectation. Buffers handed to a call must come back unchanged."""

from __future__ import annotations

import copy
import operator

import numpy as np
import pytest

from ndarray import (
    AclNdarrayError,
    ArgumentTypeError,
    ExportRefusedError,
    IndexOutOfRangeError,
    InvalidLayoutError,
    NdArray,
    NotRepresentableError,
    PaddingNotFreeError,
    ReadOnlyError,
    ShapeDescriptor,
    UnsupportedOptionError,
)
from ndarray.formats import directml, dlpack, torch, xla

F32 = np.float32


_MASKED = np.ma.masked_array(np.arange(3, dtype=np.float32), mask=[False, True, False])
_OTHER_ORDER = np.dtype(">f4") if np.little_endian else np.dtype("<f4")  # the byte order this machine lacks


def _ro():
    return NdArray.from_numpy(np.broadcast_to(F32(1), (2, 3)))


ROWS = [
    # ---- integer rule: bool and non-integers refused everywhere with ArgumentTypeError
    ("descriptor-bool-dimension", lambda: ShapeDescriptor((2, True)), ArgumentTypeError,
     r"shape\[1\] is True, a bool, expected an integer"),
    ("descriptor-float-dimension", lambda: ShapeDescriptor((2.0, 3)), ArgumentTypeError,
     r"shape\[0\] is 2.0 of type float, expected an integer"),
    ("descriptor-bool-stride", lambda: ShapeDescriptor((2, 3), strides=(3, True)), ArgumentTypeError,
     r"strides\[1\] is True, a bool, expected an integer"),
    ("descriptor-bool-offset", lambda: ShapeDescriptor((2,), strides=(1,), offset=False), ArgumentTypeError,
     r"offset is False, a bool, expected an integer"),
    ("descriptor-string-shape", lambda: ShapeDescriptor("2x3"), ArgumentTypeError,
     r"shape is '2x3', expected a sequence of integers"),
    ("descriptor-float-alloc-size", lambda: ShapeDescriptor((2,), strides=(1,), alloc_size=4.0), ArgumentTypeError,
     r"alloc_size is 4.0 of type float, expected an integer"),
    ("alignment-bool", lambda: NdArray.empty((2,), alignment_in_bytes=True), ArgumentTypeError,
     r"alignment_in_bytes is True, a bool, expected an integer"),
    ("torch-bool-dimension", lambda: torch.strides_for((1, True, 3, 4), "channels_last"), ArgumentTypeError,
     r"shape\[1\] is True, a bool, expected an integer"),
    ("torch-float-dims", lambda: torch.permute_layout((2, 3), (3, 1), (1.0, 0)), ArgumentTypeError,
     r"dims\[0\] is 1.0 of type float, expected an integer"),
    ("directml-bool-size", lambda: directml.BufferTensorDesc("FLOAT32", (2, False)), ArgumentTypeError,
     r"sizes\[1\] is False, a bool, expected an integer"),
    ("directml-bool-broadcast", lambda: directml.calculate_strides((2, 3), broadcast=(True,)), ArgumentTypeError,
     r"broadcast\[0\] is True, a bool, expected an integer"),
    ("shapeinfo-bool-entry", lambda: ShapeDescriptor.from_shape_info([1, True, 1, 8192, 1, 99]), ArgumentTypeError,
     r"shapeInfo\[1\] is True, a bool, expected an integer"),
    # ---- shapes bounded: elements and bytes fit int64
    ("descriptor-elements-overflow-int64", lambda: ShapeDescriptor((2**40, 2**40)), InvalidLayoutError,
     r"shape \(1099511627776, 1099511627776\) has 1208925819614629174706176 elements .* expected at most 2\*\*63 - 1"),
    ("descriptor-bytes-overflow-int64", lambda: ShapeDescriptor((2**61,), "float64"), InvalidLayoutError,
     r"has 2305843009213693952 elements \(18446744073709551616 bytes\), expected at most 2\*\*63 - 1 elements and bytes"),
    ("descriptor-padded-bytes-overflow-int64", lambda: ShapeDescriptor((2**30,), "float32", paddings=(2**61,)),
     InvalidLayoutError, r"alloc_size is 2305843010287435776 elements \(9223372041149743104 bytes\), expected "
     r"alloc_size_in_bytes <= 2\*\*63 - 1"),
    ("descriptor-stride-overflow-int64", lambda: ShapeDescriptor((2,), strides=(2**62,)), InvalidLayoutError,
     r"strides\[0\] is 4611686018427387904 elements \(18446744073709551616 bytes\)"),
    # ---- constructors
    ("ndarray-wrap-numpy-with-constructor", lambda: NdArray(np.zeros(3)), ArgumentTypeError,
     r"use NdArray.from_numpy\(array\)"),
    ("ndarray-allocate-not-descriptor", lambda: NdArray.allocate((2, 3)), ArgumentTypeError,
     r"descriptor must be a ShapeDescriptor, got tuple"),
    ("ndarray-from-numpy-list", lambda: NdArray.from_numpy([1, 2]), ArgumentTypeError,
     r"from_numpy expects a numpy.ndarray, got list"),
    ("ndarray-dtype-twice", lambda: NdArray((2,), "int8", dtype="int16"), ArgumentTypeError, r"dtype given twice"),
    ("ndarray-broadcast-incompatible", lambda: NdArray((2, 3)).broadcast_to((4, 4)), InvalidLayoutError,
     r"cannot broadcast \(2, 3\) to \(4, 4\)"),
    # ---- read-only
    ("setitem-read-only", lambda: _ro().__setitem__(0, 1), ReadOnlyError, r"assignment needs a writeable NdArray"),
    ("fill-read-only", lambda: _ro().fill(0), ReadOnlyError, r"fill needs a writeable NdArray"),
    ("ufunc-out-read-only", lambda: np.add(1, 1, out=_ro()[0]), ReadOnlyError, r"add.__call__ writes into a read-only NdArray"),
    ("fill-padding-read-only", lambda: _ro().fill_padding(0), ReadOnlyError, r"fill_padding needs a writeable NdArray"),
    ("fill-padding-of-user-memory", lambda: NdArray.from_numpy(np.zeros((4, 4), F32))[1:3, 1:3].fill_padding(9),
     PaddingNotFreeError, r"fill_padding would write 12 cells outside the elements that the library did not allocate"),
    ("fill-padding-of-a-slice", lambda: NdArray.zeros((4, 3), paddings=(1, 1))[1:3].fill_padding(9),
     PaddingNotFreeError, r"fill_padding would write \d+ cells outside the elements .* padding_is_free"),
    ("constructor-readonly-kept", lambda: NdArray((2, 3), readonly=True).fill(1), ReadOnlyError,
     r"fill needs a writeable NdArray, this one is read-only"),
    ("ufunc-at-read-only", lambda: np.add.at(_ro(), ([0], [0]), 1), ReadOnlyError,
     r"add.at writes into a read-only NdArray"),
    ("copyto-read-only", lambda: np.copyto(_ro(), 1), ReadOnlyError, r"copyto writes into a read-only NdArray"),
    ("sort-read-only", lambda: _ro().sort(), ReadOnlyError, r"sort\(\) writes into a read-only NdArray"),
    ("flags-set", lambda: setattr(NdArray((2,)).flags, "writeable", False), ReadOnlyError,
     r"flags.writeable cannot be set"),
    # ---- keywords: never accepted and ignored
    ("constructor-owns-padding-with-shape", lambda: NdArray((2, 3), owns_padding=True), ArgumentTypeError,
     r"owns_padding=True is for NdArray\(allocation, descriptor\); NdArray\(shape, ...\) allocates its own"),
    ("constructor-unknown-keyword", lambda: NdArray((2, 3), readonyl=True), ArgumentTypeError,
     r"NdArray.__init__\(\) got unknown keyword argument 'readonyl', expected one of \['allocation_or_shape', 'descriptor_or_dtype'"),
    ("zeros-unknown-keyword", lambda: NdArray.zeros((2,), paddigns=(1,)), ArgumentTypeError,
     r"NdArray.full\(\) got unknown keyword argument 'paddigns'"),
    ("wrap-dtype-keyword", lambda: NdArray(np.zeros(8, np.uint8), ShapeDescriptor((2,)), dtype="int8"),
     ArgumentTypeError, r"NdArray\(allocation, descriptor\) takes only readonly= and owns_padding=, got dtype"),
    ("copy-order-unknown", lambda: NdArray((2,)).copy("X"), UnsupportedOptionError,
     r"order is 'X', expected one of 'C', 'F', 'A', 'K'"),
    ("view-not-whole-elements", lambda: NdArray.from_numpy(np.arange(4, dtype=np.int8))[1:3].view(np.int16),
     NotRepresentableError, r"view\(<class 'numpy.int16'>\) gives int16 elements at byte offset 1"),
    # ---- numpy protocol
    ("array-copy-false-needs-copy", lambda: NdArray((2,)).__array__("float64", copy=False), NotRepresentableError,
     r"copy=False but dtype float64 differs from the elements' float32"),
    ("len-of-0d", lambda: len(NdArray(())), ArgumentTypeError, r"len\(\) of a 0-d NdArray"),
    # ---- options
    ("memory-format-unknown", lambda: NdArray((1, 2, 3, 4)).contiguous("nhwc"), UnsupportedOptionError,
     r"memory_format is 'nhwc' but expected one of \('contiguous', 'channels_last', 'channels_last_3d'\)"),
    ("memory-format-rank", lambda: NdArray((2, 3)).contiguous("channels_last"), InvalidLayoutError,
     r"shape has rank 2 but memory_format='channels_last' needs rank 4"),
    # ---- DLPack
    ("dlpack-negative-stride", lambda: NdArray((3, 2))[::-1].__dlpack__(), ExportRefusedError,
     r"strides\[0\] is -2, a negative stride: DLPack consumers such as PyTorch cannot import it"),
    ("dlpack-negative-stride-is-buffer-error", lambda: dlpack.from_dlpack(NdArray((3, 2))[:, ::-1]), BufferError,
     r"strides\[1\] is -1, a negative stride"),
    ("dlpack-export-ml-dtype", lambda: NdArray((2,), _bfloat16()).__dlpack__(), ExportRefusedError,
     r"numpy cannot export this NdArray through DLPack: .*bfloat16\[2\]"),
    ("dlpack-not-cpu", lambda: dlpack.from_dlpack(_FakeDevice()), NotRepresentableError,
     r"__dlpack_device__ is \(2, 0\), expected a CPU device \(1, 0\)"),
    # ---- PyTorch memory formats
    ("torch-nchw-as-channels-last", lambda: torch.to_channels_last_memory(np.zeros((1, 3, 4, 5), F32)),
     NotRepresentableError, r"C stride 20, expected 1 for torch.channels_last\): the memory is not NHWC. Use the "
                            r"array as it is with data_layout='NCHW'"),
    ("torch-channels-last-rank-3", lambda: torch.to_channels_last_memory(np.zeros((3, 4, 5), F32)), InvalidLayoutError,
     r"array has rank 3 but channels_last needs rank 4 \(NCHW\)"),
    # ---- XLA text: refused fields are named
    ("xla-unbounded-dynamic", lambda: xla.parse("f32[?,5]"), NotRepresentableError,
     r"dimensions \[\?,5\] has '\?', an unbounded dynamic dimension"),
    ("xla-sparse-layout", lambda: xla.parse("f32[8]{0:D(C)}"), NotRepresentableError,
     r"layout attribute 'D\(C\)' is sparse dim level types D\(...\)"),
    ("xla-physical-shape", lambda: xla.parse("f32[8]{0:P(s32[8]{0})}"), NotRepresentableError,
     r"is a physical shape P\(...\)"),
    ("xla-unknown-attribute", lambda: xla.parse("f32[8]{0:Q(1)}"), InvalidLayoutError,
     r"layout attribute 'Q\(1\)' is not supported, expected T\(...\) tiles, L\(n\)"),
    ("xla-memory-space-not-int", lambda: xla.parse("f32[8]{0:S(x)}"), InvalidLayoutError,
     r"memory_space 'S\(x\)' has 'x', expected an integer"),
    ("xla-unclosed-tuple", lambda: xla.parse("(f32[2], s32[]"), InvalidLayoutError,
     r"tuple '\(f32\[2\], s32\[\]' is missing its closing '\)'"),
    ("xla-packed-to-descriptor", lambda: xla.parse("s4[8]{0:E(4)}").to_shape_descriptor(), NotRepresentableError,
     r"element_size_in_bits E\(4\)|needs dtype int4, which numpy lacks"),
    ("xla-token-dtype", lambda: xla.parse("token[]").dtype, NotRepresentableError,
     r"element_type token has no numpy dtype"),
    ("xla-not-text", lambda: xla.parse(b"f32[2]"), ArgumentTypeError, r"text b'f32\[2\]' is not a string"),
    ("xla-index-out-of-range", lambda: xla.parse("f32[3,5]{1,0:T(2,2)}").linear_index((3, 0)), IndexOutOfRangeError,
     r"index\[0\] is 3, expected 0 <= index\[0\] < 3"),
    ("descriptor-index-rank", lambda: ShapeDescriptor((2, 3)).element_offset((1,)), IndexOutOfRangeError,
     r"index has 1 entries but shape has rank 2"),
    # ---- masked arrays: an NdArray has no mask, so no constructor drops one silently (issue 39)
    ("from-numpy-masked", lambda: NdArray.from_numpy(_MASKED), NotRepresentableError,
     r"from_numpy got a numpy.ma.MaskedArray of shape \(3,\) with 1 masked element, expected a numpy.ndarray: "
     r"an NdArray has no mask, so the mask would be lost; pass x.filled\(value\) .* or np.ma.getdata\(x\)"),
    ("from-dlpack-masked", lambda: dlpack.from_dlpack(_MASKED), NotRepresentableError,
     r"from_dlpack got a numpy.ma.MaskedArray of shape \(3,\) with 1 masked element"),
    ("wrap-masked-allocation", lambda: NdArray(np.ma.masked_array(np.zeros(8, np.uint8), mask=True), ShapeDescriptor((2,))),
     NotRepresentableError, r"NdArray\(allocation, descriptor\) got a numpy.ma.MaskedArray of shape \(8,\) with 8 masked"),
    # ---- byte order: kept and printed; refused, naming the dtype, by every target without the field
    ("xla-big-endian", lambda: xla.XlaShape.from_shape_descriptor(ShapeDescriptor((2, 3), _OTHER_ORDER)),
     NotRepresentableError, rf"dtype is {_OTHER_ORDER.str} \(.*-endian\), expected the machine's .*-endian byte order: "
                            r"XLA's element type has no byte order field"),
    ("directml-big-endian", lambda: directml.BufferTensorDesc.from_shape_descriptor(ShapeDescriptor((2,), _OTHER_ORDER)),
     NotRepresentableError, rf"dtype is {_OTHER_ORDER.str} .*DirectML's data type has no byte order field"),
    ("dlpack-export-big-endian", lambda: NdArray((2,), _OTHER_ORDER).__dlpack__(), ExportRefusedError,
     rf"DLPack only supports native byte order.*ShapeDescriptor\({_OTHER_ORDER.str}\[2\]"),
    # ---- shapeInfo: what it cannot carry is asked for by name
    ("shapeinfo-padding-only-after-the-outermost-rows",
     lambda: ShapeDescriptor.from_shape_info(ShapeDescriptor((2, 3), paddings=(1, 0)).to_shape_info()), InvalidLayoutError,
     r"the padding is after the outermost dimension; give alloc_size, which libnd4j keeps in the NDArray"),
]


def _bfloat16():
    return pytest.importorskip("ml_dtypes", reason="ml_dtypes (optional) gives numpy a bfloat16").bfloat16


class _FakeDevice:
    """A DLPack producer on a GPU (kDLCUDA = 2)."""

    def __dlpack_device__(self):
        return (2, 0)


@pytest.mark.parametrize("name, call, error, match", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input(name, call, error, match):
    with pytest.raises(error, match=match) as info:
        call()
    assert isinstance(info.value, AclNdarrayError), type(info.value).__mro__  # always the library's own


def test_every_row_names_a_distinct_case():
    assert len({r[0] for r in ROWS}) == len(ROWS) >= 30


# ---------------------------------------------------------------------------- write paths (issue 26)
# Every way to write through an NdArray, on arrays whose surroundings are someone's data: a
# slice of the user's numpy array (the cells around it are the user's other elements, padding
# borrowed), a slice of a padded buffer the library allocated (around it: the other rows),
# and read-only arrays over the user's writeable memory. Each path writes the elements only
# ("elements"), or refuses with the given exception before writing anything; numpy's own
# ValueError where the call is numpy's on a numpy view the library handed out read-only.
# The test compares every byte of the allocation before and after.

def _writable_user_slice():
    return NdArray.from_numpy(np.arange(36, dtype=F32).reshape(6, 6))[1:3, 1:4]


def _writable_library_slice():
    root = NdArray.zeros((4, 3), paddings=(2, 2), padding_offsets=(1, 1))
    root[...] = np.arange(12).reshape(4, 3)
    return root[1:3]


def _readonly_user_slice():
    x = np.arange(36, dtype=F32).reshape(6, 6)
    return NdArray(x.view(np.uint8).reshape(-1), ShapeDescriptor((6, 6), "float32"), readonly=True)[1:3, 1:4]


def _readonly_library():
    return NdArray((4, 3), paddings=(2, 2), padding_offsets=(1, 1), readonly=True)[1:3]


SUBJECTS = {"user-slice": _writable_user_slice, "library-slice": _writable_library_slice,
            "readonly-user-slice": _readonly_user_slice, "readonly-library": _readonly_library}

E, N = "elements", "nothing"  # writes the elements only / writes nothing of the allocation
#: (path, write(a), what a writeable subject allows, what a read-only one does)
WRITE_PATHS = [
    ("setitem-element", lambda a: a.__setitem__((0, 0), 7), E, ReadOnlyError),
    ("setitem-all", lambda a: a.__setitem__(Ellipsis, 7), E, ReadOnlyError),
    ("setitem-from-ndarray", lambda a: a.__setitem__(Ellipsis, NdArray.full(a.shape, 7)), E, ReadOnlyError),
    ("setitem-mask", lambda a: a.__setitem__(a > 2, 7), E, ReadOnlyError),
    ("fill", lambda a: a.fill(7), E, ReadOnlyError),
    ("fill-padding", lambda a: a.fill_padding(7), PaddingNotFreeError, ReadOnlyError),
    ("ufunc-out", lambda a: np.add(a, 1, out=a), E, ReadOnlyError),
    ("ufunc-positional-out", lambda a: np.multiply(a, 2, a), E, ReadOnlyError),
    ("in-place-operator", lambda a: operator.iadd(a, 1), E, ReadOnlyError),
    ("ufunc-at", lambda a: np.add.at(a, ([0], [0]), 1), E, ReadOnlyError),
    ("reduction-out", lambda a: np.sum(np.ones((2, 3), F32), axis=0, out=a[0]), E, ReadOnlyError),
    ("method-out", lambda a: a.cumsum(axis=1, out=a), E, ReadOnlyError),
    ("copyto", lambda a: np.copyto(a, 7), E, ReadOnlyError),
    ("copyto-keyword", lambda a: np.copyto(dst=a, src=7), E, ReadOnlyError),
    ("put", lambda a: np.put(a, [0], 7), E, ReadOnlyError),
    ("place", lambda a: np.place(a, np.ones((2, 3), bool), 7), E, ReadOnlyError),
    ("putmask", lambda a: np.putmask(a, np.ones((2, 3), bool), 7), E, ReadOnlyError),
    ("fill-diagonal", lambda a: np.fill_diagonal(a, 7), E, ReadOnlyError),
    ("put-along-axis", lambda a: np.put_along_axis(a, np.zeros((2, 1), np.intp), 7, axis=1), E, ReadOnlyError),
    ("sort", lambda a: (a.__setitem__(Ellipsis, 3 - a.numpy()) if not a.readonly else None, a.sort()), E,
     ReadOnlyError),
    ("partition", lambda a: a.partition(0), E, ReadOnlyError),
    ("method-put", lambda a: a.put([0], 7), E, ReadOnlyError),
    ("transpose-view", lambda a: a.T.__setitem__((0, 0), 7), E, ReadOnlyError),
    ("row-view-fill", lambda a: a[0].fill(7), E, ReadOnlyError),
    ("view-fill", lambda a: a.view().fill(7), E, ReadOnlyError),
    ("dtype-view-fill", lambda a: a.view(np.int32).fill(7), E, ReadOnlyError),
    ("real-fill", lambda a: a.real.fill(7), E, ReadOnlyError),
    ("astype-no-copy-fill", lambda a: a.astype(a.dtype, copy=False).fill(7), E, ReadOnlyError),
    ("numpy-view-write", lambda a: a.numpy().__setitem__(Ellipsis, 7), E, ValueError),
    ("asarray-write", lambda a: np.asarray(a).__setitem__(Ellipsis, 7), E, ValueError),
    ("numpy-view-flipped-writeable", lambda a: _flip_and_write(a.numpy()), E, ValueError),
    ("buffer-write", lambda a: a.buffer().__setitem__(Ellipsis, 7), ValueError, ValueError),
    ("from-dlpack-write", lambda a: _write_through_dlpack(a), E, ValueError),
    ("copy-write", lambda a: copy.copy(a).fill(7), N, N),
    ("deepcopy-write", lambda a: copy.deepcopy(a).fill(7), N, N),
    ("contiguous-write", lambda a: a.contiguous(paddings=(1, 1)).fill_padding(7), N, N),
]


def _flip_and_write(view):
    """A numpy user flagging an element view writeable, then writing: numpy refuses the flag
    for a read-only NdArray's memory (read-only bytes, not a flag that can be flipped back)."""
    view.flags.writeable = True
    view[...] = 7


def _write_through_dlpack(a):
    """numpy >= 2.1 imports DLPack memory writeable; older numpy (the emulated images: 1.24,
    2.2) imports it read-only and refuses to export a read-only array. Either way nothing may
    be written outside the elements: a read-only import of a writable array skips (there is no
    write to test), a read-only array must be refused (ValueError, as numpy says it)."""
    try:
        v = np.from_dlpack(a)
    except ExportRefusedError as e:
        if a.readonly:
            raise ValueError(f"read-only: {e}") from e
        raise
    if not v.flags.writeable and not a.readonly:
        pytest.skip(f"numpy {np.__version__} imports DLPack memory read-only: no write through it to test")
    v[...] = 7


@pytest.mark.parametrize("subject", SUBJECTS)
@pytest.mark.parametrize("path, write, writable, readonly", WRITE_PATHS, ids=[p[0] for p in WRITE_PATHS])
def test_write_path_leaves_bytes_outside_the_elements(subject, path, write, writable, readonly):
    a = SUBJECTS[subject]()
    before = a.allocation.copy()
    elements = np.repeat(~a.padding_mask(), a.itemsize)  # bytes of a's elements in the allocation
    expected = readonly if a.readonly else writable
    if isinstance(expected, type):
        with pytest.raises(expected):
            write(a)
        np.testing.assert_array_equal(a.allocation, before)  # nothing written at all
        return
    write(a)
    unchanged = ~elements if expected == E else np.ones_like(elements)
    np.testing.assert_array_equal(a.allocation[unchanged], before[unchanged])


def test_every_write_path_is_tried_on_borrowed_and_readonly_memory():
    assert len(WRITE_PATHS) >= 30 and len({p[0] for p in WRITE_PATHS}) == len(WRITE_PATHS)
    assert {SUBJECTS[s]().readonly for s in SUBJECTS} == {True, False}


def test_wrapping_numpy_memory_imports_no_numpy_ma():
    """The masked-array refusal looks for ``numpy.ma`` only where something imported it (numpy
    2 imports it when first named, 0.1 s of a model's first start under emulation): a fresh
    process that wraps numpy arrays has it imported exactly when it had before."""
    import os
    import subprocess
    import sys

    code = ("import sys, numpy as np; before = 'numpy.ma' in sys.modules; from ndarray import NdArray; "
            "a = NdArray.from_numpy(np.zeros((2, 3), np.float32)); b = NdArray(a.numpy().base, a.descriptor); "
            "print(before, 'numpy.ma' in sys.modules)")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    before, after = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                                   env=env).stdout.split()
    assert after == before
