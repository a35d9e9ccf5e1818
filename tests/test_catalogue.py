"""Catalogue of bad inputs: every one gets a clear Python exception and leaves every buffer
untouched (issue 6, part 1).

Each entry of ``CASES`` is one row of the table:

    Case(name, build, error, match, native=False, fix=None)

* ``build()`` makes fresh buffers and returns ``(call, buffers)``: ``call()`` is the bad
  use of the public API, ``buffers`` every numpy array / NdArray whose bytes must not change
  (the whole allocation is compared, padding included);
* ``error`` the exception type ``call()`` must raise, ``match`` a regex on its message
  (messages name the field, the value and the expectation);
* ``native``: the case needs arm64 + the native ACL module (``pytest.mark.acl``). Native
  cases run twice: in the pytest process, and each in its own subprocess, so a segfault
  fails that one test instead of killing the suite (issue 6, part 3). To keep this cheap
  under QEMU, one subprocess runs all native cases and reports each as it ends; a crash
  pins the case that was running, and the cases after it run in a subprocess each;
* ``fix``: the library does not check this yet. The test is a strict xfail whose reason is
  the fix the library needs; once the fix lands the test XPASSes, which fails the run until
  the marker is removed.

Run a single case by hand (what the subprocess does)::

    python tests/test_catalogue.py CASE_NAME
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Tuple, Type

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:  # `python tests/test_catalogue.py NAME` from a source checkout
    sys.path.insert(0, ROOT)

from ndarray import InvalidLayoutError, NdArray, NotRepresentableError, ShapeDescriptor  # noqa: E402
from ndarray.errors import AclNdarrayError, ArgumentTypeError, IndexOutOfRangeError, ReadOnlyError, UnsupportedOptionError  # noqa: E402
from ndarray.formats import directml, torch, xla  # noqa: E402
from acl_bridge import AclTensorInfo, PaddingSize, descriptor_from_tensor_info, tensor_info  # noqa: E402
from acl_bridge.native import (  # noqa: E402  (importable without ACL)
    AclError, AclIndexOutOfRangeError, AclInvalidArgumentError, AclStatusError, AclUnavailableError)

F32 = np.float32


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[], Tuple[Callable[[], object], Sequence[object]]]
    error: Type[BaseException]
    match: str
    native: bool = False
    fix: Optional[str] = None  # the library fix this case waits for (strict xfail)


CASES: list = []


def case(name, error, match, *, native=False, fix=None):
    """Decorator: register ``build`` as a catalogue row."""

    def register(build):
        CASES.append(Case(name, build, error, match, native, fix))
        return build

    return register


def arange(shape, dtype=F32, **kw):
    """A padded NdArray whose elements are their own linear index and whose padding is -7."""
    pad = 0xF9 if np.dtype(dtype).kind == "u" else -7
    a = NdArray.full(shape, 0, dtype, padding_value=pad, **kw)
    a.numpy()[...] = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    return a


def raw_bytes(buf) -> np.ndarray:
    """Every byte behind ``buf`` (an NdArray: its allocation; numpy: its root buffer)."""
    if isinstance(buf, NdArray):
        return buf.allocation
    root = buf
    while isinstance(root.base, np.ndarray):
        root = root.base
    if root.flags.c_contiguous:
        return root.reshape(-1).view(np.uint8)
    return buf


class CaseFailed(AssertionError):
    """The case ran and broke its row: no exception, another type, another message, or a
    buffer changed. (Infrastructure errors, such as ACL missing, are not CaseFailed.)"""


def check_case(c: Case) -> None:
    """Run one catalogue row: the exception, its message, and every buffer byte-identical."""
    call, buffers = c.build()
    before = [raw_bytes(b).copy() for b in buffers]
    try:
        call()
    except AclUnavailableError:
        raise
    except c.error as e:
        if type(e) is not c.error:
            raise CaseFailed(f"{c.name}: raised {type(e).__name__}, expected exactly {c.error.__name__}: {e}") from e
        if not isinstance(e, AclNdarrayError):
            raise CaseFailed(f"{c.name}: {type(e).__name__} is not one of this library's exceptions: {e}") from e
        if not re.search(c.match, str(e)):
            raise CaseFailed(f"{c.name}: {type(e).__name__} message does not match {c.match!r}: {e}") from e
    except Exception as e:
        raise CaseFailed(f"{c.name}: raised {type(e).__name__}, expected {c.error.__name__}: {e}") from e
    else:
        raise CaseFailed(f"{c.name}: no exception, expected {c.error.__name__} matching {c.match!r}")
    for i, (b, old) in enumerate(zip(buffers, before)):
        new = raw_bytes(b)
        changed = np.flatnonzero(new != old)
        if changed.size:
            raise CaseFailed(f"{c.name}: buffer {i} changed at bytes {changed[:10].tolist()}")


# ============================================================================ pure Python
# ---- ShapeDescriptor / NdArray


@case("shape-strides-rank-mismatch", InvalidLayoutError, r"strides has 1 entries but shape has rank 2: shape=\(2, 3\)")
def _():
    return lambda: ShapeDescriptor.create((2, 3), strides=(3,)), []


@case("negative-dimension", InvalidLayoutError, r"shape\[1\] is -1, expected a size >= 0")
def _():
    return lambda: ShapeDescriptor.create((2, -1)), []


@case("strides-past-end-of-buffer", InvalidLayoutError,
      r"reaches element 5, past the end of the allocation of alloc_size 5 \(expected < 5\)")
def _():
    return lambda: ShapeDescriptor.create((2, 3), strides=(3, 1), alloc_size=5), []


@case("negative-stride-before-start", InvalidLayoutError, r"reaches element -2, before the start of the allocation")
def _():
    return lambda: ShapeDescriptor.create((3,), strides=(-1,)), []


@case("offset-past-end", InvalidLayoutError, r"offset 7 with strides \(1,\) reaches element 8, past the end")
def _():
    return lambda: ShapeDescriptor.create((2,), strides=(1,), offset=7, alloc_size=8), []


@case("negative-alloc-size", InvalidLayoutError, r"alloc_size is -1, expected >= 0")
def _():
    return lambda: ShapeDescriptor.create((0,), strides=(1,), alloc_size=-1), []


@case("buffer-too-small", InvalidLayoutError, r"allocation has 20 bytes but the descriptor needs alloc_size_in_bytes 24")
def _():
    buf = np.full(20, 0x5A, np.uint8)
    return lambda: NdArray(buf, ShapeDescriptor.create((2, 3), F32)), [buf]


@case("allocation-not-bytes", InvalidLayoutError, r"allocation must be a 1-D uint8 numpy array, got dtype\('float32'\)")
def _():
    buf = np.arange(6, dtype=F32)
    return lambda: NdArray(buf, ShapeDescriptor.create((2, 3), F32)), [buf]


@case("allocation-not-contiguous", InvalidLayoutError, r"allocation must be contiguous bytes, got strides \(2,\)")
def _():
    buf = np.arange(64, dtype=np.uint8)
    return lambda: NdArray(buf[::2], ShapeDescriptor.create((2, 3), F32)), [buf]


@case("negative-padding", InvalidLayoutError, r"paddings\[0\] is -1, expected >= 0")
def _():
    return lambda: NdArray.zeros((2, 3), paddings=(-1, 0)), []


@case("padding-offset-larger-than-padding", InvalidLayoutError,
      r"padding_offsets\[1\] is 3, expected 0 <= padding_offsets\[1\] <= paddings\[1\] = 2")
def _():
    return lambda: NdArray.zeros((2, 3), paddings=(0, 2), padding_offsets=(0, 3)), []


@case("negative-padding-offset", InvalidLayoutError, r"padding_offsets\[0\] is -1, expected 0 <= padding_offsets\[0\]")
def _():
    return lambda: ShapeDescriptor.create((2, 3), paddings=(1, 0), padding_offsets=(-1, 0)), []


@case("paddings-rank-mismatch", InvalidLayoutError, r"paddings has 1 entries but shape has rank 2")
def _():
    return lambda: ShapeDescriptor.create((2, 3), paddings=(1,)), []


@case("paddings-and-strides-together", InvalidLayoutError,
      r"give either paddings/padding_offsets or strides/offset/alloc_size, not both")
def _():
    return lambda: ShapeDescriptor.create((2, 3), strides=(3, 1), paddings=(0, 0)), []


@case("non-integer-dimension", ArgumentTypeError, r"shape\[0\] is 2.5 of type float, expected an integer")
def _():
    return lambda: ShapeDescriptor.create((2.5, 3)), []


@case("object-dtype", InvalidLayoutError, r"dtype is dtype\('O'\), expected a numeric or boolean scalar dtype")
def _():
    return lambda: ShapeDescriptor.create((2,), dtype=object), []


@case("bad-order", InvalidLayoutError, r"order must be 'c' or 'f', got 'x'")
def _():
    return lambda: ShapeDescriptor.create((2,), order="x"), []


@case("bad-alignment", InvalidLayoutError, r"alignment_in_bytes is 3, expected a power of two")
def _():
    return lambda: NdArray.empty((2, 3), alignment_in_bytes=3), []


@case("stride-not-multiple-of-itemsize", NotRepresentableError, r"strides\[0\] is 2 bytes, not a multiple of the itemsize 4")
def _():
    buf = np.arange(8, dtype=F32)
    view = np.lib.stride_tricks.as_strided(buf, (3,), (2,))
    return lambda: NdArray.from_numpy(view), [buf]


@case("index-out-of-range", IndexOutOfRangeError, r"index\[0\] is 2, expected 0 <= index\[0\] < 2")
def _():
    return lambda: ShapeDescriptor.create((2, 3)).element_offset((2, 0)), []


@case("reshape-needs-copy", NotRepresentableError, r"reshape from \(4, 3\) to \(12,\) needs a copy")
def _():
    a = arange((3, 4))
    return lambda: a.transpose().reshape(12), [a]


@case("reshape-wrong-size", InvalidLayoutError, r"cannot reshape \(2, 3\) to \(4, 2\)")
def _():
    a = arange((2, 3), paddings=(1, 1))
    return lambda: a.reshape(4, 2), [a]


# ---- outputs that must not be written


@case("write-padding-of-read-only-numpy", ReadOnlyError, r"fill_padding needs a writeable NdArray, this one is read-only")
def _():
    buf = np.arange(12, dtype=F32)
    buf.flags.writeable = False
    return lambda: NdArray.from_numpy(buf[:10].reshape(2, 5)[:, :4]).fill_padding(0), [buf]


@case("write-padding-of-self-overlapping-layout", ReadOnlyError, r"fill_padding needs a writeable NdArray, this one is read-only")
def _():
    buf = np.arange(12, dtype=F32)
    overlapping = np.lib.stride_tricks.as_strided(buf, (3, 4), (8, 4))  # rows overlap by half
    return lambda: NdArray.from_numpy(overlapping).fill_padding(0), [buf]


@case("write-through-broadcast-view", ReadOnlyError, r"fill_padding needs a writeable NdArray, this one is read-only")
def _():
    a = arange((1, 4), paddings=(0, 2))
    return lambda: a.broadcast_to((3, 4)).fill_padding(0), [a]


# ---- ACL mapping (pure Python: the checks that stand before any native call)


@case("acl-rank-above-6", NotRepresentableError, r"rank is 7, ACL tensors have at most 6 dimensions")
def _():
    a = arange((1, 1, 1, 1, 1, 2, 3))
    return lambda: tensor_info(a), [a]


@case("acl-stride-2**32-bytes", NotRepresentableError, r"strides_in_bytes\[0\] is 4294967296, expected < 2\*\*32")
def _():
    # descriptor only: no 4 GiB buffer is allocated
    return lambda: tensor_info(ShapeDescriptor.create((2, 1), F32, strides=(2**30, 1))), []


@case("acl-total-size-2**32-bytes", NotRepresentableError, r"total_size_in_bytes is 4294967296, expected < 2\*\*32")
def _():
    return lambda: tensor_info(ShapeDescriptor.create((2**28, 4), F32)), []


@case("acl-zero-size-dimension", NotRepresentableError, r"shape\[1\] is 0, ACL cannot represent a dimension of size 0")
def _():
    return lambda: tensor_info(ShapeDescriptor.create((2, 0, 3), F32)), []


@case("acl-zero-size-numpy-array", NotRepresentableError, r"shape\[1\] is 0, ACL cannot represent a dimension of size 0")
def _():
    buf = np.zeros((2, 0, 3), F32)
    return lambda: tensor_info(NdArray.from_numpy(buf)), [buf]


@case("acl-innermost-stride-not-element-size", NotRepresentableError,
      r"the innermost stride is 8 bytes, expected the element size 4")
def _():
    buf = np.arange(24, dtype=F32).reshape(4, 6)
    return lambda: tensor_info(NdArray.from_numpy(buf[:, ::2])), [buf]


@case("acl-negative-stride", NotRepresentableError, r"strides_in_bytes\[0\] is -16, ACL strides are unsigned")
def _():
    buf = np.arange(12, dtype=F32).reshape(3, 4)
    return lambda: tensor_info(NdArray.from_numpy(buf[::-1])), [buf]


@case("acl-stride-0-broadcast", NotRepresentableError, r"strides_in_bytes\[0\] is 0 for a dimension of size 3")
def _():
    buf = np.arange(4, dtype=F32)
    return lambda: tensor_info(NdArray.from_numpy(np.broadcast_to(buf, (3, 4)))), [buf]


@case("acl-non-native-byte-order", NotRepresentableError, r"dtype is >f4 \(big-endian\), expected the machine.s little-endian byte order: ACL.s DataType has no byte order field")
def _():
    buf = np.arange(6, dtype=">f4").reshape(2, 3)
    return lambda: tensor_info(NdArray.from_numpy(buf)), [buf]


@case("acl-unsupported-dtype", NotRepresentableError, r"dtype float64 has no ACL data type")
def _():
    buf = np.arange(6, dtype=np.float64)
    return lambda: tensor_info(NdArray.from_numpy(buf)), [buf]


@case("acl-unknown-data-layout", UnsupportedOptionError, r"data_layout is 'NHCW', expected one of \('NCHW', 'NHWC'\)")
def _():
    a = arange((1, 2, 3, 4))
    return lambda: tensor_info(a, data_layout="NHCW"), [a]


@case("acl-quantization-scale-zero", InvalidLayoutError, r"quantization scale is 0.0, expected a finite number > 0")
def _():
    a = arange((4,), np.uint8)
    return lambda: tensor_info(a, quantization=(0.0, 0)), [a]


@case("acl-quantization-offset-out-of-range", InvalidLayoutError, r"quantization offset is 300, expected 0 <= offset <= 255")
def _():
    a = arange((4,), np.uint8)
    return lambda: tensor_info(a, quantization=(0.5, 300)), [a]


@case("acl-info-strides-rank-mismatch", InvalidLayoutError, r"strides_in_bytes has 1 entries but tensor_shape has 2")
def _():
    return lambda: descriptor_from_tensor_info(AclTensorInfo((3, 4), (4,), 0, 48, PaddingSize(), "F32")), []


@case("acl-info-stride-not-multiple-of-element", InvalidLayoutError,
      r"strides_in_bytes is \(4, 14\), expected multiples of the element size 4")
def _():
    return lambda: descriptor_from_tensor_info(AclTensorInfo((3, 4), (4, 14), 0, 64, PaddingSize(), "F32")), []


# ---- malformed XLA notation

_XLA_BAD = {
    "xla-unclosed-layout": ("F32[3,5]{1,0", r"layout '\{1,0' is missing its closing '\}'"),
    "xla-minor-to-major-not-permutation": ("F32[3,5]{1,1}", r"minor_to_major \{1,1\} is not a permutation of 0..1"),
    "xla-unknown-element-type": ("Q99[3]", r"element_type 'q99' is not one of pred"),
    "xla-non-integer-dimension": ("F32[3,x]{1,0}", r"dimensions \[3,x\] has 'x', expected comma-separated integers"),
    "xla-negative-dimension": ("F32[3,-5]{1,0}", r"dimensions \[3,-5\] has -5 at dimension 1, expected sizes >= 0"),
    "xla-unclosed-tile": ("F32[3,5]{1,0:T(2,2}", r"tile '\(2,2' is missing its closing '\)'"),
    "xla-padded-smaller-than-dimensions": ("F32[3,5]{1,0:pad(2,2)}", r"padded_dimensions \(2,2\) is smaller than dimensions"),
    "xla-no-element-type": ("[3]", r"shape '\[3\]' is not an element type followed by \[dimensions\]"),
}
for _name, (_text, _match) in _XLA_BAD.items():
    case(_name, InvalidLayoutError, _match)(lambda _text=_text: (lambda: xla.parse(_text), []))


# ---- malformed libnd4j shapeInfo

_SHAPE_INFO_BAD = {
    "shapeinfo-empty": ([], r"shapeInfo is empty, expected \[rank, shape..., strides..., extra, ews, order\]"),
    "shapeinfo-wrong-length": ([2, 2, 3], r"shapeInfo has 3 entries, expected 2 \* rank \+ 4 = 8 for rank 2"),
    "shapeinfo-negative-rank": ([-1, 0, 0, 0], r"shapeInfo has 4 entries, expected 2 \* rank \+ 4 = 2 for rank -1"),
    "shapeinfo-bad-order": ([2, 2, 3, 3, 1, 8192, 1, 120], r"shapeInfo order is 120, expected 99 \('c'\) or 102 \('f'\)"),
    "shapeinfo-no-data-type": ([2, 2, 3, 3, 1, 7, 1, 99], r"shapeInfo extra 7 has data type bits 0"),
    "shapeinfo-wrong-ews": ([2, 2, 3, 3, 1, 8192, 5, 99], r"shapeInfo ews is 5 but strides \(3, 1\) give ews 1"),
    "shapeinfo-false-padded-flag": ([2, 2, 3, 3, 1, 8192 | (1 << 25), 1, 99], r"shapeInfo extra has ARRAY_HAS_PADDED_BUFFER but"),
}
for _name, (_info, _match) in _SHAPE_INFO_BAD.items():
    case(_name, InvalidLayoutError, _match)(
        lambda _info=_info: (lambda: ShapeDescriptor.from_shape_info(_info), []))


@case("shapeinfo-strides-outside-buffer", InvalidLayoutError, r"reaches element 6, past the end of the allocation of alloc_size 6")
def _():
    return lambda: ShapeDescriptor.from_shape_info([2, 2, 3, 4, 1, 8192, 0, 99], alloc_size=6), []


@case("shapeinfo-non-native-byte-order", NotRepresentableError, r"dtype is >f4 \(big-endian\), expected .* libnd4j.s shapeInfo has no byte order field")
def _():
    buf = np.arange(6, dtype=">f4")
    return lambda: NdArray.from_numpy(buf).descriptor.to_shape_info(), [buf]


# ---- other conventions


@case("torch-channels-last-rank-3", InvalidLayoutError, r"shape has rank 3 but memory_format='channels_last' needs rank 4")
def _():
    return lambda: torch.strides_for((2, 3, 4), "channels_last"), []


@case("directml-strides-rank-mismatch", InvalidLayoutError, r"strides has 1 entries but sizes has rank 2")
def _():
    return lambda: directml.calc_buffer_tensor_size("FLOAT32", (2, 3), (3,)), []


# ============================================================================ native (ACL)
# Lazy imports: acl_bridge.functions imports everywhere, but only runs on arm64 + ACL.


def _fn():
    from acl_bridge import functions

    return functions


def _tensor_cls():
    from acl_bridge.tensor import AclTensor

    return AclTensor


@case("closed-tensor", AclInvalidArgumentError, r"tensor is closed", native=True)
def _():
    a = arange((2, 3))
    t = _tensor_cls()(a)
    t.close()
    return lambda: t.import_memory(), [a]


@case("closed-function", AclError, r"function is closed", native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 8))
    f = _fn().Activation(src, dst, "relu")
    f.close()
    return lambda: f.run(), [src, dst]


@case("closed-function-as-context-manager", AclError, r"function is closed", native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 8))
    with _fn().Activation(src, dst, "relu") as f:
        pass
    return lambda: f(), [src, dst]


@case("read-only-numpy-output", ReadOnlyError, r"dst is written by activation but is read-only", native=True)
def _():
    src = np.arange(16, dtype=F32).reshape(2, 8)
    dst = np.zeros((2, 8), F32)
    dst.flags.writeable = False
    return lambda: _fn().Activation(src, dst, "relu"), [src, dst]


@case("self-overlapping-output", ReadOnlyError, r"dst is written by add but is read-only", native=True)
def _():
    a, b = np.arange(12, dtype=F32).reshape(3, 4), np.ones((3, 4), F32)
    buf = np.zeros(8, F32)
    dst = np.lib.stride_tricks.as_strided(buf, (3, 4), (8, 4))  # rows overlap: writeable in numpy!
    return lambda: _fn().Add(a, b, dst), [a, b, buf]


@case("broadcast-view-output", ReadOnlyError, r"dst is written by copy but is read-only", native=True)
def _():
    src = arange((3, 4))
    dst = arange((1, 4))
    return lambda: _fn().Copy(src, dst.broadcast_to((3, 4))), [src, dst]


@case("mismatched-dtypes", AclStatusError, r"NEArithmeticAddition::validate", native=True)
def _():
    a, b, dst = arange((2, 8)), arange((2, 8), np.int32), arange((2, 8))
    return lambda: _fn().Add(a, b, dst), [a, b, dst]


@case("mismatched-shapes", AclStatusError, r"NEArithmeticAddition::validate", native=True)
def _():
    a, b, dst = arange((2, 8)), arange((3, 8)), arange((2, 8))
    return lambda: _fn().Add(a, b, dst), [a, b, dst]


def _families():
    from acl_bridge import families

    return families


@case("div-shapes-do-not-broadcast", AclStatusError, r"NEElementwiseDivision::validate", native=True)
def _():
    a, b, dst = arange((2, 8)), arange((3, 8)), arange((2, 8))
    return lambda: _families().Div(a, b, dst), [a, b, dst]


@case("reduce-axis-out-of-range", UnsupportedOptionError, r"ReduceSum: axis is 2, expected -2\.\.1 for a rank-2 src",
      native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 1))
    return lambda: _families().ReduceSum(src, dst, axis=2), [src, dst]


@case("reduce-rank-5", UnsupportedOptionError, r"ReduceMax: src has 5 dimensions, ACL reduces at most 4", native=True)
def _():
    src, dst = arange((1, 2, 2, 2, 2)), arange((1, 2, 2, 2, 1))
    return lambda: _families().ReduceMax(src, dst, axis=-1), [src, dst]


@case("reduce-dst-without-the-kept-axis", AclStatusError, r"NEReductionOperation::validate", native=True)
def _():
    src, dst = arange((2, 8)), arange((2,))
    return lambda: _families().ReduceSum(src, dst, axis=1), [src, dst]


@case("compare-shapes-do-not-broadcast", AclStatusError, r"NEElementwiseComparison::validate", native=True)
def _():
    a, b, dst = arange((2, 8)), arange((3, 8)), arange((2, 8), np.uint8)
    return lambda: _families().Less(a, b, dst), [a, b, dst]


@case("arg-max-axis-out-of-range", UnsupportedOptionError, r"ArgMax: axis is -3, expected -2\.\.1 for a rank-2 src",
      native=True)
def _():
    src, dst = arange((2, 8)), arange((2,), np.int32)
    return lambda: _families().ArgMax(src, dst, axis=-3), [src, dst]


@case("select-shapes-differ", AclStatusError, r"NESelect::validate", native=True)
def _():
    c, a, b, dst = arange((2, 8), np.uint8), arange((2, 8)), arange((2, 4)), arange((2, 8))
    return lambda: _families().Select(c, a, b, dst), [c, a, b, dst]


@case("strided-slice-negative-stride", UnsupportedOptionError,
      r"StridedSlice: strides\[1\] is -1, expected >= 1", native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 8))
    return lambda: _families().StridedSlice(src, dst, begin=(0, 7), end=(2, 0), strides=(1, -1)), [src, dst]


@case("strided-slice-empty", UnsupportedOptionError, r"StridedSlice: axis 1 slices 5:5:1 of extent 8, which is empty",
      native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 1))
    return lambda: _families().StridedSlice(src, dst, begin=(0, 5), end=(2, 5)), [src, dst]


@case("strided-slice-entries-not-one-per-axis", UnsupportedOptionError,
      r"StridedSlice: begin has 1 entries, expected 2 \(one per axis of a rank-2 src\)", native=True)
def _():
    src, dst = arange((2, 8)), arange((1, 8))
    return lambda: _families().StridedSlice(src, dst, begin=(0,), end=(1,)), [src, dst]


@case("strided-slice-shrink-out-of-range", IndexOutOfRangeError, r"StridedSlice: begin\[0\] is 2, expected -2\.\.1",
      native=True)
def _():
    src, dst = arange((2, 8)), arange((8,))
    return lambda: _families().StridedSlice(src, dst, begin=(2, 0), end=(3, 8), shrink_axis_mask=1), [src, dst]


@case("strided-slice-dst-shape-wrong", InvalidLayoutError, r"StridedSlice: dst has shape \(2, 4\), src \(2, 8\) "
      r"sliced gives \(2, 3\)", native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 4))
    return lambda: _families().StridedSlice(src, dst, begin=(0, 1), end=(2, 4)), [src, dst]


@case("gather-index-out-of-range", IndexOutOfRangeError, r"Gather: indices holds 4, expected 0\.\.3", native=True)
def _():
    src, idx, dst = arange((2, 4)), np.array([1, 4], np.int32), arange((2, 2))
    return lambda: _families().Gather(src, idx, dst, axis=1), [src, idx, dst]


@case("gather-negative-index", IndexOutOfRangeError, r"Gather: indices holds -1, expected 0\.\.1", native=True)
def _():
    src, idx, dst = arange((2, 4)), np.array([-1], np.int32), arange((1, 4))
    return lambda: _families().Gather(src, idx, dst), [src, idx, dst]


@case("gather-axis-out-of-range", UnsupportedOptionError, r"Gather: axis is 2, expected -2\.\.1 for a rank-2 src",
      native=True)
def _():
    src, idx, dst = arange((2, 4)), np.array([0], np.int32), arange((2, 1))
    return lambda: _families().Gather(src, idx, dst, axis=2), [src, idx, dst]


@case("gather-int64-indices", ArgumentTypeError, r"Gather: indices is int64\[2\], expected a 1-D int32 array",
      native=True)
def _():
    src, idx, dst = arange((2, 4)), np.array([0, 1], np.int64), arange((2, 2))
    return lambda: _families().Gather(src, idx, dst, axis=1), [src, idx, dst]


def _gather_nd_run(rows, dtype="int64"):
    """GatherNd of src (12, 3) = params (3, 4, 3) by ``rows`` read at run: (call, buffers); a
    bad row is the native layer's AclIndexOutOfRangeError (an IndexOutOfRangeError)."""
    src, idx, dst = arange((12, 3)), np.array(rows, dtype), arange((len(rows), 3))
    f = _families().GatherNd(src, idx, dst, dims=(3, 4))
    return f.run, [src, idx, dst]


@case("gather-nd-runtime-index-past-the-end", AclIndexOutOfRangeError,
      r"gather_nd: index \[3, 0\] \(row 1\) is outside src's index space \[3, 4\] \(component 0 is 3, expected 0\.\.2\)", native=True)
def _():
    return _gather_nd_run([[0, 0], [3, 0]])


@case("gather-nd-runtime-negative-component", AclIndexOutOfRangeError,
      r"gather_nd: index \[1, -1\] \(row 0\) has a negative component", native=True)
def _():
    return _gather_nd_run([[1, -1]], "int32")


@case("gather-nd-dims-not-src-rows", InvalidLayoutError, r"GatherNd: src has 12 rows, dims \(3, 5\) give 15",
      native=True)
def _():
    src, idx, dst = arange((12, 3)), np.array([[0, 0]], np.int32), arange((1, 3))
    return lambda: _families().GatherNd(src, idx, dst, dims=(3, 5)), [src, idx, dst]


@case("gather-nd-int16-indices", ArgumentTypeError, r"GatherNd: indices is int16\[1, 2\], expected an int32 or int64 "
      r"\(N, 2\) array", native=True)
def _():
    src, idx, dst = arange((12, 3)), np.array([[0, 0]], np.int16), arange((1, 3))
    return lambda: _families().GatherNd(src, idx, dst, dims=(3, 4)), [src, idx, dst]


@case("tile-multiples-not-one-per-axis", UnsupportedOptionError,
      r"Tile: multiples has 1 entries, expected 2 \(one per axis of src \(2, 4\)\)", native=True)
def _():
    src, dst = arange((2, 4)), arange((2, 8))
    return lambda: _families().Tile(src, dst, multiples=(2,)), [src, dst]


@case("depth-to-space-block-1", InvalidLayoutError, r"block_size is 1, expected an integer >= 2", native=True)
def _():
    src, dst = arange((1, 2, 2, 4)), arange((1, 2, 2, 4))
    return lambda: _families().DepthToSpace(src, dst, block_size=1, data_layout="NHWC"), [src, dst]


@case("deconvolution-dst-shape-wrong", AclStatusError, r"NEDeconvolutionLayer::validate", native=True)
def _():
    src, w, dst = arange((1, 4, 4, 3)), arange((2, 3, 3, 3)), arange((1, 7, 9, 2))
    return lambda: _families().Deconvolution(src, w, None, dst, stride=2, data_layout="NHWC"), [src, w, dst]


@case("l2-normalize-axis-past-acls-three", UnsupportedOptionError,
      r"L2Normalize: axis 0 of a rank-4 src is ACL's dimension 3; ACL normalizes along its dimensions 0\.\.2",
      native=True)
def _():
    src, dst = arange((2, 2, 2, 4)), arange((2, 2, 2, 4))
    return lambda: _families().L2Normalize(src, dst, axis=0), [src, dst]


@case("l2-normalize-epsilon-zero", UnsupportedOptionError, r"L2Normalize: epsilon is 0\.0, expected a number > 0",
      native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 8))
    return lambda: _families().L2Normalize(src, dst, epsilon=0.0), [src, dst]


@case("local-response-normalization-negative-radius", InvalidLayoutError, r"radius is -1, expected an integer >= 0",
      native=True)
def _():
    src, dst = arange((1, 2, 2, 5)), arange((1, 2, 2, 5))
    return lambda: _families().LocalResponseNormalization(src, dst, radius=-1, data_layout="NHWC"), [src, dst]


@case("matmul-inner-dimensions-differ", AclStatusError, r"NEMatMul::validate", native=True)
def _():
    a, b, dst = arange((2, 3, 4)), arange((2, 5, 6)), arange((2, 3, 6))
    return lambda: _families().MatMul(a, b, dst), [a, b, dst]


@case("convolution-3d-two-strides", UnsupportedOptionError,
      r"Convolution3D: stride \(2, 2\) / padding .*expected \(d, h, w\)", native=True)
def _():
    src, w, dst = arange((1, 4, 4, 4, 2)), arange((3, 3, 3, 2, 2)), arange((1, 2, 2, 2, 2))
    return lambda: _families().Convolution3D(src, w, None, dst, stride=(2, 2), data_layout="NHWC"), [src, w, dst]


@case("pooling-3d-padding-not-below-kernel", UnsupportedOptionError,
      r"Pooling3D: padding \(2, 0\) along an axis of kernel 2, expected each side < 2", native=True)
def _():
    src, dst = arange((1, 4, 4, 4, 2)), arange((1, 4, 2, 2, 2))
    return lambda: _families().Pooling3D(src, dst, "max", kernel=2, stride=2, padding=((2, 0), (0, 0), (0, 0)),
                                         data_layout="NHWC"), [src, dst]


@case("pooling-3d-dst-shape-wrong", InvalidLayoutError,
      r"Pooling3D: dst has shape \(1, 2, 2, 3, 2\), src \(1, 4, 4, 4, 2\) pooled with these options gives "
      r"\(1, 2, 2, 2, 2\)", native=True)
def _():
    src, dst = arange((1, 4, 4, 4, 2)), arange((1, 2, 2, 3, 2))
    return lambda: _families().Pooling3D(src, dst, "avg", kernel=2, stride=2, data_layout="NHWC"), [src, dst]


def _lstm_tensors(dst_shape=(2, 4)):
    """An LSTM step's tensors by role (batch 2, 3 inputs, 4 cells, no optional part)."""
    gates = ("forget", "cell", "output", "input")
    t = {"src": arange((2, 3)), "output_state_in": arange((2, 4)), "cell_state_in": arange((2, 4)),
         "dst": arange(dst_shape)}
    for g in gates:
        t[f"input_to_{g}_weights"], t[f"recurrent_to_{g}_weights"] = arange((4, 3)), arange((4, 4))
    t.update({"input_gate_bias": arange((4,)), "forget_gate_bias": arange((4,)), "cell_bias": arange((4,)),
              "output_gate_bias": arange((4,))})
    return t


@case("lstm-negative-cell-clip", UnsupportedOptionError,
      r"Lstm: cell_clip is -1\.0, expected a finite number >= 0 \(0: no clip\)", native=True)
def _():
    t = _lstm_tensors()
    return lambda: _families().Lstm(**t, cell_clip=-1.0), list(t.values())


@case("lstm-dst-shape-wrong", AclStatusError, r"NELSTMLayer::validate", native=True)
def _():
    t = _lstm_tensors(dst_shape=(2, 5))
    return lambda: _families().Lstm(**t), list(t.values())

def _detection(n=6, classes=2, anchor_width=4, m=3):
    """Detection post-process tensors: box codes (1, n, 4), scores (1, n, classes + 1), anchors
    (n, anchor_width), outputs for m detections."""
    ins = [arange((1, n, 4)), arange((1, n, classes + 1)), arange((n, anchor_width))]
    return ins + [arange((1, m, 4)), arange((1, m)), arange((1, m)), arange((1,))]


@case("detection-anchors-three-wide", InvalidLayoutError,
      r"DetectionPostProcess: anchors has shape \(6, 3\), expected \(6, 4\)", native=True)
def _():
    t = _detection(anchor_width=3)
    return lambda: _families().DetectionPostProcess(*t, max_detections=3, num_classes=2), t


@case("detection-scores-without-background", InvalidLayoutError,
      r"class_scores has shape \(1, 6, 2\), expected \(1, 6, 3\)", native=True)
def _():
    t = _detection(classes=1)
    return lambda: _families().DetectionPostProcess(*t, max_detections=3, num_classes=2), t


@case("detection-fast-nms-two-classes", UnsupportedOptionError,
      r"max_classes_per_detection is 2 with the fast NMS, expected 1", native=True)
def _():
    t = _detection(m=6)
    return lambda: _families().DetectionPostProcess(*t, max_detections=3, num_classes=2,
                                                    max_classes_per_detection=2), t


@case("detection-iou-threshold-zero", UnsupportedOptionError, r"nms_iou_threshold is 0\.0, expected a number in \(0, 1\]",
      native=True)
def _():
    t = _detection()
    return lambda: _families().DetectionPostProcess(*t, max_detections=3, num_classes=2, nms_iou_threshold=0.0), t


@case("output-shape-wrong", AclStatusError, r"NEActivationLayer::validate", native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 7))
    return lambda: _fn().Activation(src, dst, "relu"), [src, dst]


@case("mismatched-data-layouts", AclStatusError, r"NEPoolingLayer::validate", native=True)
def _():
    # NHWC buffers (N=1, H=4, W=4, C=3) described as NCHW: pooling over "H, W" = (4, 3)
    # then disagrees with the NHWC-shaped output.
    src, dst = arange((1, 4, 4, 3)), arange((1, 2, 2, 3))
    return lambda: _fn().Pooling(src, dst, "max", kernel=2, stride=2, data_layout="NCHW"), [src, dst]


@case("unknown-data-layout", UnsupportedOptionError, r"data_layout is 'NHCW'", native=True)
def _():
    src, dst = arange((1, 3, 4, 4)), arange((1, 3, 2, 2))
    return lambda: _fn().Pooling(src, dst, "max", kernel=2, stride=2, data_layout="NHCW"), [src, dst]


@case("unknown-activation", UnsupportedOptionError, r"function is 'rleu', expected one of", native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 8))
    return lambda: _fn().Activation(src, dst, "rleu"), [src, dst]


@case("unknown-option-name", UnsupportedOptionError, r"Pooling: got an unexpected keyword argument 'pool_size'; its options are",
      native=True)
def _():
    src, dst = arange((1, 3, 4, 4)), arange((1, 3, 2, 2))
    return lambda: _fn().Pooling(src, dst, pool_size=2), [src, dst]


@case("flat-four-tuple-window-padding", UnsupportedOptionError, r"padding is \(1, 0, 1, 0\): .*flat 4-tuple is ambiguous",
      native=True)
def _():
    src, dst = arange((1, 3, 4, 4)), arange((1, 3, 4, 4))
    return lambda: _fn().Pooling(src, dst, "max", kernel=2, padding=(1, 0, 1, 0)), [src, dst]


@case("bool-stride", ArgumentTypeError, r"stride is True, a bool, expected an integer", native=True)
def _():
    src, dst = arange((1, 3, 4, 4)), arange((1, 3, 3, 3))
    return lambda: _fn().Pooling(src, dst, "max", kernel=2, stride=True), [src, dst]


@case("quantization-for-unknown-role", UnsupportedOptionError, r"quantization names \['out'\], expected roles", native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 8), np.uint8)
    return lambda: _fn().Quantize(src, dst, 0.5, 0, quantization={"out": (1.0, 0)}), [src, dst]


@case("tensor-of-wrong-type", ArgumentTypeError, r"src must be an NdArray or numpy array, got list", native=True)
def _():
    dst = arange((2, 8))
    return lambda: _fn().Activation([1.0, 2.0], dst, "relu"), [dst]


@case("permute-axes-not-permutation", InvalidLayoutError, r"axes is \(0, 0, 1\), expected a permutation of 0..2", native=True)
def _():
    src, dst = arange((2, 3, 4)), arange((2, 3, 4))
    return lambda: _fn().Permute(src, dst, (0, 0, 1)), [src, dst]


@case("gemm-inner-dimensions-differ", AclStatusError, r"NEGEMM::validate", native=True)
def _():
    a, b, dst = arange((3, 4)), arange((5, 2)), arange((3, 2))
    return lambda: _fn().Gemm(a, b, None, dst), [a, b, dst]


@case("rank-above-6-through-function", NotRepresentableError, r"rank is 7, ACL tensors have at most 6 dimensions", native=True)
def _():
    src, dst = arange((1, 1, 1, 1, 1, 2, 8)), arange((1, 1, 1, 1, 1, 2, 8))
    return lambda: _fn().Activation(src, dst, "relu"), [src, dst]



@case("zero-size-dimension-through-function", NotRepresentableError, r"shape\[1\] is 0, ACL cannot represent", native=True)
def _():
    src, dst = np.zeros((2, 0, 8), F32), np.zeros((2, 0, 8), F32)
    return lambda: _fn().Activation(src, dst, "relu"), [src, dst]


@case("non-native-byte-order-through-function", NotRepresentableError, r"dtype is >f4 \(big-endian\).*ACL.s DataType has no byte order field", native=True)
def _():
    src = np.arange(16, dtype=">f4").reshape(2, 8)
    dst = np.zeros((2, 8), F32)
    return lambda: _fn().Activation(src, dst, "relu"), [src, dst]


@case("innermost-stride-without-copy", NotRepresentableError,
      r"src cannot be used in place \(not_representable: the innermost stride is 8 bytes.*allow_copy=False", native=True)
def _():
    buf = np.arange(32, dtype=F32).reshape(2, 16)
    dst = np.zeros((2, 8), F32)
    return lambda: _fn().Activation(buf[:, ::2], dst, "relu", allow_copy=False), [buf, dst]


@case("quantize-scale-zero", InvalidLayoutError, r"quantization scale is 0.0, expected a finite number > 0", native=True)
def _():
    src, dst = arange((2, 8)), arange((2, 8), np.uint8)
    return lambda: _fn().Quantize(src, dst, scale=0.0, offset=0), [src, dst]



@case("misaligned-base-pointer", NotRepresentableError, r"not aligned", native=True)
def _():
    raw = np.zeros(4 * 16 + 1, np.uint8)
    src = np.frombuffer(raw.data, dtype=F32, count=16, offset=1).reshape(2, 8)  # address % 4 == 1
    assert not src.flags.aligned
    dst = np.zeros((2, 8), F32)
    return lambda: _fn().Activation(src, dst, "relu", allow_copy=False), [raw, dst]



@case("output-partially-overlaps-input", InvalidLayoutError, r"overlaps .* in memory", native=True)
def _():
    # dst = src shifted by 2 elements (measured on ACL 20.08: silently wrong)
    buf = np.arange(20, dtype=F32)
    return lambda: _fn().Copy(buf[:16].reshape(2, 8), buf[2:18].reshape(2, 8)), [buf]


@case("softmax-output-overlaps-input", InvalidLayoutError, r"overlaps .* in memory", native=True)
def _():
    # dst starts at src's second row: row 0's result overwrites row 1 before it is read
    # (measured on ACL 20.08: silently wrong)
    buf = np.arange(24, dtype=F32) / 4
    return lambda: _fn().Softmax(buf[:16].reshape(2, 8), buf[8:24].reshape(2, 8)), [buf]


@case("pooling-output-overlaps-input", InvalidLayoutError, r"overlaps .* in memory", native=True)
def _():
    # dst lies on rows 2-3 of channel 0 of src (measured on ACL 20.08: silently wrong)
    buf = np.arange(40, dtype=F32)
    return lambda: _fn().Pooling(buf[:32].reshape(1, 2, 4, 4), buf[8:16].reshape(1, 2, 2, 2), "max",
                                 kernel=2, stride=2), [buf]


# ============================================================================ the tests

_BY_NAME = {c.name: c for c in CASES}
assert len(_BY_NAME) == len(CASES), "duplicate case names"
PURE_CASES = [c for c in CASES if not c.native]
NATIVE_CASES = [c for c in CASES if c.native]


EXPECTED_FAILURES = (CaseFailed,)


def _params(cases):
    out = []
    for c in cases:
        marks = [pytest.mark.acl] if c.native else []
        if c.fix:
            # only the expected failure (wrong/no exception, or a buffer changed) counts as xfail;
            # anything else (ACL missing, an unrelated error) still fails
            marks.append(pytest.mark.xfail(strict=True, raises=EXPECTED_FAILURES, reason=f"library fix needed: {c.fix}"))
        out.append(pytest.param(c, id=c.name, marks=marks))
    return out


def test_catalogue_size():
    assert len(CASES) >= 30
    assert len(PURE_CASES) >= 30


@pytest.mark.parametrize("c", _params(PURE_CASES))
def test_pure(c):
    check_case(c)


@pytest.mark.parametrize("c", _params(NATIVE_CASES))
def test_native(c):
    # the subprocess batch goes first: a case that crashed there is not run in this process,
    # so a segfault fails its tests instead of killing the suite
    status, message = _batch_results().get(c.name, (None, ""))
    if status == "crashed":
        raise AssertionError(f"case {c.name} crashed its subprocess, not run in-process: {message}")
    check_case(c)


SUBPROCESS_TIMEOUT = float(os.environ.get("ACL_NDARRAY_SUBPROCESS_TIMEOUT", "300"))


def run_isolated(args, timeout=SUBPROCESS_TIMEOUT):
    """Run ``python -X faulthandler ARGS`` with the project importable; a crash (negative
    return code = killed by a signal) becomes an assertion with the child's output."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH", "")) if p)
    proc = subprocess.run([sys.executable, "-X", "faulthandler", *args], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=ROOT)
    output = (proc.stdout + proc.stderr)[-4000:]
    if proc.returncode < 0:
        raise AssertionError(f"subprocess CRASHED with signal {-proc.returncode}:\n{output}")
    return proc.returncode, output


_BATCH: dict = {}  # case name -> (status, message) from the one batch subprocess


def _batch_results() -> dict:
    """Run every native case in ONE subprocess (a fresh interpreter per case would cost
    seconds each under QEMU). Each case is announced before it starts and reported when it
    ends; if the batch dies (a segfault), the case that started and never ended is the
    crashed one, and the cases after it are left for their own subprocess."""
    if _BATCH:
        return _BATCH
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.run([sys.executable, "-X", "faulthandler", os.path.abspath(__file__), "--native-batch"],
                              capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT, env=env, cwd=ROOT)
        stdout, stderr, rc = proc.stdout, proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        stderr, rc = f"batch killed after {SUBPROCESS_TIMEOUT} s (hang)", None
    started = None
    for line in stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            if record["status"] == "started":
                started = record["case"]
            else:
                _BATCH[record["case"]] = (record["status"], record["message"])
                started = None
    if started is not None:  # died inside this case
        how = "a hang" if rc is None else f"signal {-rc}" if rc < 0 else f"exit {rc}"
        _BATCH[started] = ("crashed", f"the batch subprocess died in this case ({how}):\n{stderr[-4000:]}")
    _BATCH.setdefault("__batch__", ("done", f"exit {rc}"))
    return _BATCH


@pytest.mark.parametrize("c", _params(NATIVE_CASES))
def test_native_isolated(c):
    status, message = _batch_results().get(c.name, (None, ""))
    if status is None:  # the batch died before this case: run it alone
        rc, output = run_isolated([os.path.abspath(__file__), c.name])
        status = {0: "ok", 1: "failed"}.get(rc, "error")
        message = output
    if status == "crashed":
        raise AssertionError(f"case {c.name} CRASHED its subprocess: {message}")
    if status == "failed":
        raise CaseFailed(f"case {c.name} failed in its subprocess: {message}")
    if status != "ok":
        raise RuntimeError(f"case {c.name} could not run in its subprocess ({status}): {message}")


def _run_one(c: Case) -> tuple:
    try:
        check_case(c)
    except EXPECTED_FAILURES as e:  # wrong/no exception, wrong message, buffer changed
        return "failed", f"{type(e).__name__}: {e}"
    except BaseException as e:  # noqa: BLE001  infrastructure: ACL missing, a bug in the case
        import traceback

        return "error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}"
    return "ok", ""


def _main(argv) -> int:
    if argv == ["--native-batch"]:
        for c in NATIVE_CASES:
            print(json.dumps({"case": c.name, "status": "started", "message": ""}), flush=True)
            status, message = _run_one(c)
            print(json.dumps({"case": c.name, "status": status, "message": message[-3000:]}), flush=True)
        return 0
    if len(argv) != 1 or argv[0] not in _BY_NAME:
        print(f"usage: {sys.argv[0]} CASE_NAME | --native-batch; cases: {', '.join(sorted(_BY_NAME))}",
              file=sys.stderr)
        return 2
    c = _BY_NAME[argv[0]]
    status, message = _run_one(c)
    print(f"{c.name}: {status} {message}", file=sys.stderr if status != "ok" else sys.stdout)
    return {"ok": 0, "failed": 1}.get(status, 3)


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
