"""acl_bridge.mapping: ACL's tensor description, computed without ACL."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acl_bridge import (
    PaddingSize,
    auto_padding,
    descriptor_from_tensor_info,
    extend_padding,
    padded_descriptor,
    tensor_info,
)
from acl_bridge.mapping import ROW_1D_RIGHT, AclTensorInfo
from ndarray.errors import UnsupportedOptionError
from ndarray import InvalidLayoutError, NdArray, NotRepresentableError, ShapeDescriptor


def test_nhwc_channel_is_x():
    info = tensor_info(ShapeDescriptor.create((1, 4, 5, 3)), data_layout="NHWC")
    assert info.tensor_shape == (3, 5, 4, 1) and info.data_layout == "NHWC"
    assert info.strides_in_bytes == (4, 12, 60, 240)


def test_quantized_types():
    info = tensor_info(ShapeDescriptor.create((2, 3), "uint8"), quantization=(0.5, 10))
    assert (info.data_type, info.quantization_scale, info.quantization_offset) == ("QASYMM8", 0.5, 10)
    info = tensor_info(ShapeDescriptor.create((2, 3), "int8"), quantization=(0.25, -3))
    assert info.data_type == "QASYMM8_SIGNED"
    assert tensor_info(ShapeDescriptor.create((2,), "uint8")).data_type == "U8"


def test_offset_view_of_a_padded_buffer():
    a = NdArray.zeros((4, 6), paddings=(2, 4), padding_offsets=(1, 2))
    info = tensor_info(a[1:3, 2:5])
    assert info.tensor_shape == (3, 2)
    assert info.strides_in_bytes == (4, 40)
    # element (0,0) of the view is element (1,2) of a, itself at padded index (2,4)
    assert info.offset_first_element_in_bytes == (2 * 10 + 4) * 4
    # the bytes around the view are other elements of `a`: never reported as padding (issue 16)
    assert not a[1:3, 2:5].padding_is_free
    assert info.padding == PaddingSize()
    # the descriptor alone still says where they are
    assert tensor_info(a[1:3, 2:5].descriptor).padding == PaddingSize(top=2, right=3, bottom=2, left=4)


def test_strided_view_along_y_is_representable():
    a = NdArray.from_numpy(np.zeros((6, 5), np.float32))[::2]
    info = tensor_info(a)
    assert info.strides_in_bytes == (4, 40) and info.tensor_shape == (5, 3)


def test_size_one_dimensions_get_dense_strides():
    x = np.zeros((3, 1, 4), np.float32)[:, ::-1, :]  # numpy keeps a harmless negative stride
    info = tensor_info(NdArray.from_numpy(x))
    assert info.strides_in_bytes == (4, 16, 16)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: ShapeDescriptor.create((1,) * 7), r"rank is 7, ACL tensors have at most 6 dimensions"),
        (lambda: ShapeDescriptor.create((2, 0)), r"shape\[1\] is 0, ACL cannot represent a dimension of size 0"),
        (lambda: ShapeDescriptor.create((2, 3), strides=(-3, 1), offset=3), r"strides_in_bytes\[0\] is -12, ACL strides are unsigned"),
        (lambda: ShapeDescriptor.create((2, 3), strides=(1, 2)), r"the innermost stride is 8 bytes, expected the element size 4"),
        (lambda: ShapeDescriptor.create((3, 2), strides=(0, 1)), r"strides_in_bytes\[0\] is 0 for a dimension of size 3"),
        (lambda: ShapeDescriptor.create((2, 3), strides=(2**30, 1)), r"strides_in_bytes\[0\] is 4294967296, expected < 2\*\*32"),
        (lambda: ShapeDescriptor.create((2**30 + 1,)), r"total_size_in_bytes is 4294967300, expected < 2\*\*32"),
        (lambda: ShapeDescriptor.create((2,), "float64"), r"dtype float64 has no ACL data type"),
        (lambda: ShapeDescriptor.create((2,), ">f4"), r"dtype is >f4 \(big-endian\), expected the machine.s little-endian byte order"),
    ],
)
def test_not_representable(make, match):
    with pytest.raises(NotRepresentableError, match=match):
        tensor_info(make())


def test_invalid_arguments():
    d = ShapeDescriptor.create((2, 3))
    with pytest.raises(UnsupportedOptionError, match=r"data_layout is 'NCWH', expected one of \('NCHW', 'NHWC'\)"):
        tensor_info(d, data_layout="NCWH")
    with pytest.raises(InvalidLayoutError, match=r"quantization scale is 0.0, expected a finite number > 0"):
        tensor_info(ShapeDescriptor.create((2,), "uint8"), quantization=(0, 0))
    with pytest.raises(InvalidLayoutError, match=r"quantization offset is 300, expected 0 <= offset <= 255"):
        tensor_info(ShapeDescriptor.create((2,), "uint8"), quantization=(1.0, 300))
    with pytest.raises(NotRepresentableError, match=r"dtype float32 has no quantized ACL data type"):
        tensor_info(d, quantization=(1.0, 0))
    with pytest.raises(InvalidLayoutError, match=r"expected an NdArray or a ShapeDescriptor, got list"):
        tensor_info([1, 2])


def test_inverse_mapping_errors():
    bad = AclTensorInfo((5,), (4,), 2, 20, PaddingSize(), "F32")
    with pytest.raises(InvalidLayoutError, match=r"offset_first_element_in_bytes is \(2,\), expected multiples of the element size 4"):
        descriptor_from_tensor_info(bad)
    with pytest.raises(InvalidLayoutError, match=r"data_type is 'X9'"):
        descriptor_from_tensor_info(AclTensorInfo((5,), (4,), 0, 20, PaddingSize(), "X9"))


def test_padded_descriptor_and_extend_padding():
    d = padded_descriptor((3, 4), "float32", PaddingSize(top=1, right=2, bottom=0, left=1))
    assert d.paddings == (1, 3) and d.padding_offsets == (1, 1)
    assert tensor_info(d).padding == PaddingSize(top=1, right=2, bottom=0, left=1)
    e = extend_padding(d, PaddingSize(top=0, right=4, bottom=2, left=0))
    assert tensor_info(e).padding == PaddingSize(top=1, right=4, bottom=2, left=1)
    # a 1-D tensor's bottom: whole rows after it, as ACL's 1-D TensorInfo counts them, read back
    b = padded_descriptor((4,), "int32", PaddingSize(right=4, bottom=5, left=2))
    row = 2 + 4 + ROW_1D_RIGHT
    assert (b.shape, b.offset, b.alloc_size) == ((4,), 2, 6 * row)
    assert tensor_info(b).padding == PaddingSize(right=ROW_1D_RIGHT, bottom=5, left=2)
    assert tensor_info(padded_descriptor((4,), "int32", PaddingSize(right=36))).padding == PaddingSize(right=36)
    with pytest.raises(NotRepresentableError, match=r"a 1-D tensor has no rows before it"):
        padded_descriptor((4,), "float32", PaddingSize(top=1))
    with pytest.raises(NotRepresentableError, match=r"at most 64 elements of right padding, not 65"):
        padded_descriptor((4,), "float32", PaddingSize(right=65, bottom=1))


@pytest.mark.parametrize("shape,padding,strides", [
    # NHWC (1, 2, 1, 40) int8, right 8 (20.08's int8 pooling asks it): rows of 48 bytes though W is 1
    ((1, 2, 1, 40), PaddingSize(right=8), (1, 48, 48, 96)),
    ((1, 1, 1, 40), PaddingSize(right=8), (1, 48, 48, 48)),
    ((1, 42, 1, 8), PaddingSize(right=8), (1, 16, 16, 672)),
    ((1, 1, 1, 40), PaddingSize(top=1, right=8, bottom=1), (1, 48, 144, 144)),
])
def test_size1_rows_of_a_padded_buffer_keep_their_stride(shape, padding, strides):
    """A dimension of size 1 in the bridge's own padded buffer keeps the stride ACL's layout
    rule gives it, so the padding reads back (and ACL addresses the rows it asked for)."""
    info = tensor_info(padded_descriptor(shape, "int8", padding), "NHWC")
    assert info.strides_in_bytes == strides and info.padding == padding


def test_size1_dimensions_of_an_explicit_view_get_dense_strides():
    x = np.zeros((2, 5, 3), np.float32)[:, ::-4, :]  # shape (2, 2, 3); then a size-1 step slice
    v = NdArray.from_numpy(x[:, :1, :])
    assert v.descriptor.explicit is not None
    assert tensor_info(v).strides_in_bytes == (4, 12, 60)  # the size-1 axis: dense over x, not -48


def test_auto_padding_counts_dimensions_like_acl():
    # numpy (1, 5) is ACL TensorShape(5): one dimension, so no top/bottom padding
    assert auto_padding((1, 5)).paddings == (0, 40)
    assert auto_padding((3, 5)).paddings == (8, 40)


def test_bottom_padding_is_seen_through_an_outer_dimension_of_size_1():
    d = ShapeDescriptor.create((1, 3, 4), paddings=(0, 2, 2), padding_offsets=(0, 1, 1))
    assert tensor_info(d).padding == PaddingSize(top=1, right=1, bottom=1, left=1)


def test_padding_is_only_bytes_that_belong_to_no_element():
    """A permuted view interleaves its rows: the bytes between them are its own elements, so
    ACL is told of no padding (issue 16: padding must be bytes ACL may own)."""
    x = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    permuted = NdArray.from_numpy(x.transpose(1, 0, 2))  # rows of 4, 12 elements apart, interleaved
    assert tensor_info(permuted).padding == PaddingSize()
    # a plain padded buffer still reports its padding
    padded = ShapeDescriptor.create((2, 5, 5), "float32", paddings=(0, 1, 1), padding_offsets=(0, 0, 0))
    assert tensor_info(padded).padding == PaddingSize(top=0, right=1, bottom=1, left=0)


def test_per_channel_weights_are_qsymm8_per_channel_and_the_bias_s32():
    from acl_bridge.mapping import PerChannelQuantization, descriptor_from_tensor_info, per_channel

    q = per_channel(((0.5, 0.25, 0.125), 0), axis=0)
    info = tensor_info(ShapeDescriptor.create((3, 2, 2, 4), "int8"), "NHWC", q)
    assert (info.data_type, info.quantization_scales, info.quantization_offset) == (
        "QSYMM8_PER_CHANNEL", (0.5, 0.25, 0.125), 0)
    assert "3 scales 0.125..0.5" in repr(info)
    assert descriptor_from_tensor_info(info).dtype == np.int8
    # depthwise NHWC weights (H, W, C*M): the channel is the last axis
    info = tensor_info(ShapeDescriptor.create((3, 3, 3), "int8"), "NHWC", PerChannelQuantization((1.0,) * 3, -1))
    assert info.data_type == "QSYMM8_PER_CHANNEL"
    bias = tensor_info(ShapeDescriptor.create((3,), "int32"), quantization=per_channel(((0.1, 0.2, 0.3), 0), 0))
    assert (bias.data_type, bias.quantization_scales) == ("S32", (0.1, 0.2, 0.3))
    assert tensor_info(ShapeDescriptor.create((3,), "int32"), quantization=(0.01, 0)).data_type == "S32"


@pytest.mark.parametrize("q,error,match", [
    (((0.5, 0.25), 0), InvalidLayoutError, r"2 scales, expected 3 \(the output-channel extent, axis 0"),
    (((0.5, 0.0, 0.1), 0), InvalidLayoutError, r"scale \[1\] is 0.0, expected a finite number > 0"),
    (((0.5, float("inf"), 0.1), 0), InvalidLayoutError, r"scale \[1\] is inf"),
    (((0.5, float("nan"), 0.1), 0), InvalidLayoutError, r"scale \[1\] is nan"),
    (((0.5, 0.25, 0.1), 3), InvalidLayoutError, r"offset is 3, expected 0 \(symmetric"),
    (((), 0), InvalidLayoutError, r"has no scales"),
    (("abc", 0), InvalidLayoutError, r"must be \(tuple of scales, 0\)"),
])
def test_bad_per_channel_quantization_is_refused_by_name(q, error, match):
    from acl_bridge.mapping import per_channel

    with pytest.raises(error, match=match):
        tensor_info(ShapeDescriptor.create((3, 2, 2, 4), "int8"), "NHWC", per_channel(q, 0))


def test_per_channel_needs_int8_or_int32_and_its_axis():
    from acl_bridge.mapping import per_channel

    q = per_channel(((0.5, 0.25, 0.125), 0), 0)
    with pytest.raises(NotRepresentableError, match=r"dtype uint8 with per-channel quantization, expected int8"):
        tensor_info(ShapeDescriptor.create((3, 4), "uint8"), quantization=q)
    with pytest.raises(InvalidLayoutError, match=r"needs its output-channel axis"):
        tensor_info(ShapeDescriptor.create((3, 4), "int8"), quantization=((0.5, 0.25, 0.125), 0))
    with pytest.raises(InvalidLayoutError, match=r"offset of an int32 bias is 2, expected 0"):
        tensor_info(ShapeDescriptor.create((3,), "int32"), quantization=(0.5, 2))


def test_functions_tie_per_channel_scales_to_the_output_channel_axis():
    from acl_bridge import functions as F
    from acl_bridge.mapping import PerChannelQuantization

    q = {"weights": ((0.1, 0.2), 0), "bias": ((0.01, 0.02), 0), "src": (0.5, 1)}
    out = F.DepthwiseConvolution._per_channel(q, "NHWC")
    assert out["weights"] == PerChannelQuantization((0.1, 0.2), -1) and out["bias"].axis == 0
    assert out["src"] == (0.5, 1)
    assert F.DepthwiseConvolution._per_channel(q, "NCHW")["weights"].axis == 0
    assert F.Convolution._per_channel(q, "NHWC")["weights"].axis == 0
    assert F.FullyConnected._per_channel(q, "NHWC")["weights"].axis == 0
    with pytest.raises(UnsupportedOptionError, match=r"quantization of src is per channel \(2 scales\); only "
                                                     r"\['weights', 'bias'\] of Convolution"):
        F.Convolution._per_channel({"src": ((0.1, 0.2), 0)}, "NHWC")
    with pytest.raises(UnsupportedOptionError, match=r"only no role of Add take per-channel"):
        F.Add._per_channel({"a": ((0.1, 0.2), 0)}, "NHWC")


def test_descriptions_are_kept_by_content_until_cleared():
    """tensor_info and padded_descriptor answer a repeated question from their caches (the
    same value, not a recomputation), and clear_description_caches empties them (a runner does
    after its load)."""
    from acl_bridge.mapping import _padded_descriptor_of, _tensor_info_of, clear_description_caches

    clear_description_caches()
    d = padded_descriptor((1, 6, 6, 8), "float32", PaddingSize(1, 2, 1, 2))
    first = tensor_info(d, "NHWC")
    assert tensor_info(padded_descriptor((1, 6, 6, 8), "float32", PaddingSize(1, 2, 1, 2)), "NHWC") is first
    assert _tensor_info_of.cache_info().currsize == 1 and _padded_descriptor_of.cache_info().currsize == 1
    clear_description_caches()
    assert _tensor_info_of.cache_info().currsize == 0 and _padded_descriptor_of.cache_info().currsize == 0
    again = tensor_info(d, "NHWC")
    assert again == first and again is not first
    # an unhashable quantization is described without the cache, the same way
    assert tensor_info(ShapeDescriptor.create((4,), "int8"), "NCHW", [0.5, 3]) == \
        tensor_info(ShapeDescriptor.create((4,), "int8"), "NCHW", (0.5, 3))


def test_an_equal_value_of_another_type_never_finds_a_cached_description():
    """``2.0`` and ``True`` equal ``2`` and ``1`` and hash the same, but a shape or an offset
    of those types is refused when not cached; the caches must not hand back the int's
    answer (and a refusal from inside the cached call is not mistaken for a hash failure)."""
    from acl_bridge.mapping import clear_description_caches
    from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

    clear_description_caches()
    padded_descriptor((2, 3), "float32", PaddingSize())
    tensor_info(ShapeDescriptor.create((4,), "int8"), "NCHW", (0.5, 3))
    for shape, what in (((2.0, 3), "2.0 of type float"), ((True, 3), "True, a bool")):
        with pytest.raises(ArgumentTypeError, match=rf"shape\[0\] is {what}, expected an integer"):
            padded_descriptor(shape, "float32", PaddingSize())
    for quantization, what in (((0.5, 3.0), "3.0 of type float"), ((0.5, True), "True, a bool")):
        for cached in (True, False):  # the same refusal with or without an int's entry in the cache
            if not cached:
                clear_description_caches()
            with pytest.raises(ArgumentTypeError, match=rf"quantization offset is {what}, expected an integer"):
                tensor_info(ShapeDescriptor.create((4,), "int8"), "NCHW", quantization)
        tensor_info(ShapeDescriptor.create((4,), "int8"), "NCHW", (0.5, 3))
    # a refusal raised inside the cached call comes out as it is, not described again
    with pytest.raises(UnsupportedOptionError, match=r"^data_layout is 'NOPE', expected one of \('NCHW', 'NHWC'\): "
                                                     r"ShapeDescriptor\(int8\[4\]:\(1\) \+0 /4 c\)$"):
        tensor_info(ShapeDescriptor.create((4,), "int8"), "NOPE")


def test_per_channel_answers_are_kept_by_content_and_refusals_are_not():
    """per_channel answers a repeated tuple from its cache (the same value), with the same
    checks as without it: a bad scale is refused every time, a list is checked afresh, and
    clear_description_caches empties it."""
    from acl_bridge.mapping import _per_channel_of, clear_description_caches, per_channel

    clear_description_caches()
    q = ((0.25, 0.5, 1.0), 0)
    first = per_channel(q, 3)
    assert per_channel(((0.25, 0.5, 1.0), 0), 3) is first and first.scales == (0.25, 0.5, 1.0) and first.axis == 3
    assert per_channel(q, 0).axis == 0 and per_channel([[0.25, 0.5, 1.0], 0], 3) == first
    assert _per_channel_of.cache_info().currsize == 2
    for _ in range(2):
        with pytest.raises(InvalidLayoutError, match=r"scale \[1\] is -0.5, expected a finite number > 0"):
            per_channel(((0.25, -0.5), 0), 0)
    clear_description_caches()
    assert _per_channel_of.cache_info().currsize == 0


def test_a_per_channel_description_is_kept_only_for_float_scales():
    """tensor_info keeps a per-channel tensor's description by content where its scales are a
    tuple of floats (as per_channel makes them); other scales are described afresh, and a
    scale count that does not fit the shape is refused every time."""
    from acl_bridge.mapping import PerChannelQuantization, _tensor_info_of, clear_description_caches, per_channel

    clear_description_caches()
    d = ShapeDescriptor.create((4, 3, 3, 2), "int8")
    q = per_channel(((0.5, 0.25, 1.0, 2.0), 0), 0)
    first = tensor_info(d, "NHWC", q)
    assert tensor_info(d, "NHWC", per_channel(((0.5, 0.25, 1.0, 2.0), 0), 0)) is first
    assert first.quantization_scales == (0.5, 0.25, 1.0, 2.0) and _tensor_info_of.cache_info().currsize == 1
    ints = tensor_info(d, "NHWC", PerChannelQuantization((1, 2, 3, 4), 0))
    assert ints.quantization_scales == (1, 2, 3, 4) and _tensor_info_of.cache_info().currsize == 1
    for _ in range(2):
        with pytest.raises(InvalidLayoutError, match=r"has 4 scales, expected 3"):
            tensor_info(ShapeDescriptor.create((3, 3, 3, 2), "int8"), "NHWC", q)
    clear_description_caches()


@pytest.mark.parametrize("dtype, name", [("int8", "QSYMM8"), ("int16", "QSYMM16")])
def test_symmetric_quantization_is_qsymm8_or_qsymm16(dtype, name):
    """The quantized LSTM's symmetric tensors (acl_bridge.families.qlstm): one scale, zero point
    0, where (scale, 0) on int8 is QASYMM8_SIGNED."""
    from acl_bridge.decisions import quantization_text
    from acl_bridge.mapping import SymmetricQuantization, tensor_info

    d = ShapeDescriptor.create((4, 3), dtype)
    info = tensor_info(d, quantization=SymmetricQuantization(0.25))
    assert (info.data_type, info.quantization_scale, info.quantization_offset) == (name, 0.25, 0)
    assert f"{name}[3,4]" in repr(info) and "q=(0.25,0)" in repr(info)
    assert tensor_info(ShapeDescriptor.create((4, 3), "int8"), quantization=(0.25, 0)).data_type == "QASYMM8_SIGNED"
    assert quantization_text(SymmetricQuantization(0.25)) == "sym(0x1.0000000000000p-2)"


@pytest.mark.parametrize("dtype, scale, error, message", [
    ("float32", 0.25, NotRepresentableError, r"dtype float32 with symmetric quantization, expected int8 \(QSYMM8\)"),
    ("int8", 0.0, InvalidLayoutError, r"symmetric quantization scale is 0.0, expected a finite number > 0"),
    ("int16", float("nan"), InvalidLayoutError, r"symmetric quantization scale is nan"),
])
def test_a_bad_symmetric_quantization_is_refused(dtype, scale, error, message):
    from acl_bridge.mapping import SymmetricQuantization, tensor_info

    with pytest.raises(error, match=message):
        tensor_info(ShapeDescriptor.create((4, 3), dtype), quantization=SymmetricQuantization(scale))


@pytest.mark.parametrize("scales", [
    (0.5, 0.25, 0.125), (5e-324, 1.7976931348623157e308), (0.1,), (0.5, -0.0, 0.1), (0.5, 0.0),
    (0.5, float("inf")), (float("nan"), 0.5), (-0.25, 0.5),
])
@pytest.mark.parametrize("offset", [0, 1])
def test_per_channel_of_a_readers_floats_is_the_checked_numpy_path(scales, offset):
    """A tuple of floats with zero point 0 (what the reader makes) takes a path without numpy:
    the same PerChannelQuantization as the numpy checks make of the same scales as a list, or
    the same refusal."""
    from acl_bridge.mapping import _per_channel_checked

    def outcome(q):
        try:
            return _per_channel_checked(q, 2)
        except InvalidLayoutError as e:
            return str(e)

    fast, slow = outcome((scales, offset)), outcome((list(scales), offset))
    assert fast == slow
    if not isinstance(fast, str):
        assert type(fast.scales) is tuple and all(type(s) is float for s in fast.scales) and fast.axis == 2


_SCALES = st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-2, 2), st.booleans(),
                             st.sampled_from([np.float32(0.5), np.float64(0.25), 0.0, -0.0, 5e-324])),
                   min_size=1, max_size=40)


@given(_SCALES)
def test_per_channel_positive_floats_is_the_loop_it_replaces(values):
    """mapping._positive_floats (builtins' loops) answers what the per-scale loop answered, for
    any mix of floats (NaN, infinities, signed zeros, subnormals), ints, bools and numpy floats."""
    from acl_bridge.mapping import _positive_floats

    t = tuple(values)
    assert _positive_floats(t) == all(type(s) is float and 0.0 < s < math.inf for s in t)


@given(_SCALES)
def test_per_channel_of_any_scales_is_the_checked_value_or_its_refusal(values):
    """per_channel over the same mixes: a quantization equal to the checked path's (numpy's),
    or that path's refusal."""
    from acl_bridge.mapping import PerChannelQuantization, clear_description_caches, per_channel

    clear_description_caches()
    q = (tuple(values), 0)
    finite = np.asarray(values, np.float64)
    if not (np.isfinite(finite) & (finite > 0)).all():
        with pytest.raises(InvalidLayoutError, match=r"scale \[\d+\] is .*, expected a finite number > 0"):
            per_channel(q, 0)
        return
    got = per_channel(q, 0)
    assert got == PerChannelQuantization(tuple(finite.tolist()), 0)
    assert set(map(type, got.scales)) == {float}


@given(st.lists(st.integers(0, 9), max_size=5), st.sampled_from(["float32", "int8", "int32", "uint8", "float16"]),
       st.booleans())
def test_padded_descriptor_without_padding_is_the_dense_value(shape, dtype, numpy_ints):
    """padded_descriptor with no padding (a buffer's on a NEON first start that asks none) is
    ShapeDescriptor.dense's value, the one create() gives with zero paddings: the same fields,
    hash and derived facts, for plain and numpy integer extents."""
    from acl_bridge.mapping import clear_description_caches, padded_descriptor

    clear_description_caches()
    dims = tuple(np.int64(n) for n in shape) if numpy_ints else tuple(shape)
    d = padded_descriptor(dims, dtype, PaddingSize())
    c = ShapeDescriptor.create(tuple(shape), dtype, "c", paddings=(0,) * len(shape), padding_offsets=(0,) * len(shape))
    assert d == c and hash(d) == hash(c) and (d.strides, d.alloc_size, d.size) == (c.strides, c.alloc_size, c.size)
    assert d == ShapeDescriptor.dense(tuple(shape), dtype)
