"""ndarray.formats.xla against XLA's worked examples (docs/shapes.md, docs/tiled_layout.md)
and against an independent numpy oracle: tiling as an explicit pad-reshape-transpose of an
array of element ids, applied once per tile."""

import math
import importlib.util
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ndarray import ArgumentTypeError, InvalidLayoutError, NotRepresentableError, ShapeDescriptor
from ndarray.formats import xla
from ndarray.formats.xla import COMBINE, ELEMENT_TYPES, TiledView, XlaShape, parse


# ---------------------------------------------------------------------------- oracle
def numpy_tiled_buffer(dimensions, minor_to_major, tiles=(), padded=None):
    """buffer[j] = row-major id of the logical element at linear index j, -1 for padding.

    Built only from numpy pad / reshape / transpose, following docs/tiled_layout.md:
    pad each tiled dimension to a multiple of its tile, split it into (d/t, t), move the
    t's to the minor end keeping their order; '*' first merges a dimension into the next.
    """
    bounds = tuple(padded) if padded else tuple(dimensions)
    a = np.full(bounds, -1, dtype=np.int64)
    a[tuple(slice(0, d) for d in dimensions)] = np.arange(math.prod(dimensions)).reshape(dimensions)
    a = a.transpose(list(reversed(minor_to_major)))  # physical order, most major first
    for tile in tiles:
        h = a.ndim - len(tile)
        merged, sizes, acc = list(a.shape[:h]), [], 1
        for t, d in zip(tile, a.shape[h:]):
            acc *= d
            if t != COMBINE:
                merged.append(acc)
                sizes.append(t)
                acc = 1
        a = a.reshape(merged)
        a = np.pad(a, [(0, 0)] * h + [(0, -(-d // t) * t - d) for d, t in zip(merged[h:], sizes)], constant_values=-1)
        split = list(a.shape[:h])
        for d, t in zip(a.shape[h:], sizes):
            split += [d // t, t]
        a = a.reshape(split)
        k = len(sizes)
        a = a.transpose(list(range(h)) + [h + 2 * i for i in range(k)] + [h + 2 * i + 1 for i in range(k)])
    return np.ascontiguousarray(a).reshape(-1)


def oracle_linear_indices(dimensions, minor_to_major, tiles=(), padded=None):
    buffer = numpy_tiled_buffer(dimensions, minor_to_major, tiles, padded)
    expected = np.full(math.prod(dimensions), -1, dtype=np.int64)
    where = np.nonzero(buffer >= 0)[0]
    expected[buffer[where]] = where
    return buffer.size, expected.reshape(dimensions)


def layout_string(shape, values):
    """The buffer as text: values[logical row-major id] at each element, '.' for padding."""
    out = ["."] * shape.buffer_size
    for flat, index in enumerate(np.ndindex(*shape.dimensions)):
        out[shape.linear_index(index)] = values[flat]
    return "".join(out)


# ---------------------------------------------------------------------------- docs/shapes.md
def test_minor_to_major_0_1_is_column_major():
    # [2 x 3] array "a b c / d e f", minor_to_major [0, 1] -> "a d b e c f"
    assert layout_string(parse("f32[2,3]{0,1}"), "abcdef") == "adbecf"


def test_minor_to_major_1_0_is_row_major():
    assert layout_string(parse("f32[2,3]{1,0}"), "abcdef") == "abcdef"


def test_default_layout_is_major_to_minor():
    shape = parse("F32[2,3]")
    assert shape.minor_to_major == (1, 0) and not shape.has_layout
    assert shape == XlaShape.create("F32", (2, 3), has_layout=False)
    assert XlaShape.create("F32", (2, 3)).has_layout
    assert layout_string(shape, "abcdef") == "abcdef"
    assert XlaShape.create("F32", (2, 3, 4)).minor_to_major == (2, 1, 0)


def test_padded_dimensions_example():
    # padded_dimensions [3, 5], column-major, padding value 0:
    # "a d 0 b e 0 c f 0 0 0 0 0 0 0"
    shape = parse("F32[2,3]{0,1:pad(3,5)}")
    assert shape.padded_dimensions == (3, 5)
    assert shape.buffer_size == 15
    assert layout_string(shape, "abcdef").replace(".", "0") == "ad0be0cf0000000"
    # "equivalent to the layout of the 3x5 array a b c 0 0 / d e f 0 0 / 0 0 0 0 0 with the
    # same minor-to-major order"
    big = np.array([list("abc00"), list("def00"), list("00000")])
    assert layout_string(parse("F32[3,5]{0,1}"), big.reshape(-1)) == "ad0be0cf0000000"


def test_padded_example_as_shape_descriptor():
    shape = parse("F32[2,3]{0,1:pad(3,5)}")
    d = shape.to_shape_descriptor()
    assert d == ShapeDescriptor.create((2, 3), "float32", "f", paddings=(1, 2), padding_offsets=(0, 0))
    assert d.strides == (1, 3) and d.offset == 0 and d.alloc_size == 15
    for index in np.ndindex(2, 3):
        assert d.element_offset(index) == shape.linear_index(index)
    assert XlaShape.from_shape_descriptor(d) == shape
    # the buffer through numpy: letters written through the descriptor's strided view
    buf = np.zeros(15, dtype="<U1")
    buf[:] = "0"
    view = np.lib.stride_tricks.as_strided(buf, d.shape, tuple(s * buf.itemsize for s in d.strides))
    view[...] = np.array([list("abc"), list("def")])
    assert "".join(buf) == "ad0be0cf0000000"


# ---------------------------------------------------------------------------- docs/tiled_layout.md
def test_figure_1_element_2_3_is_at_17():
    shape = parse("F32[3,5]{1,0:T(2,2)}")
    assert shape.linear_index((2, 3)) == 17
    # linear_index((1,1,0,1), (2,3,2,2)) = (1*3 + 1)*2*2 + (0*2 + 1)
    assert shape.linear_index((2, 3)) == (1 * 3 + 1) * 2 * 2 + (0 * 2 + 1)


def test_figure_1_whole_buffer():
    shape = parse("F32[3,5]{1,0:T(2,2)}")
    assert shape.tiled_shape == (2, 3, 2, 2)
    assert shape.buffer_size == 24 and shape.buffer_size_in_bytes == 96
    # logical a b c d e / f g h i j / k l m n o, 2x2 tiles row-major, '.' = padding
    assert layout_string(shape, "abcdefghijklmno") == "abfg" "cdhi" "e.j." "kl.." "mn.." "o..."
    np.testing.assert_array_equal(
        shape.linear_indices(), [[0, 1, 4, 5, 8], [2, 3, 6, 7, 10], [12, 13, 16, 17, 20]]
    )


def test_figure_1_tiled_view_is_pad_reshape_transpose():
    shape = parse("F32[3,5]{1,0:T(2,2)}")
    view = shape.to_tiled_view()
    # (ceil(3/2), ceil(5/2), 2, 2), row-major in elements
    assert view.shape == (2, 3, 2, 2)
    assert view.strides == (12, 4, 2, 1)
    assert view.axis_dims == (0, 1, 0, 1)
    assert view.axis_divisors == (2, 2, 1, 1)
    logical = np.arange(15.0).reshape(3, 5)
    buffer = np.full(shape.buffer_size, np.nan)
    padded = np.full((4, 6), np.nan)
    padded[:3, :5] = logical
    tiles = np.lib.stride_tricks.as_strided(buffer, view.shape, view.strides_in_bytes(buffer.itemsize))
    tiles[...] = padded.reshape(2, 2, 3, 2).transpose(0, 2, 1, 3)
    for index in np.ndindex(3, 5):
        assert buffer[shape.linear_index(index)] == logical[index]
    assert XlaShape.from_tiled_view(view) == shape


def test_figure_2_repeated_tiling():
    shape = parse("F32[4,8]{1,0:T(2,4)(2,1)}")
    size, expected = oracle_linear_indices((4, 8), (1, 0), ((2, 4), (2, 1)))
    assert shape.buffer_size == size == 32
    np.testing.assert_array_equal(shape.linear_indices(), expected)
    # Figure 2's numbers: each 2x4 tile stores its columns as 2x1 pairs
    np.testing.assert_array_equal(
        shape.linear_indices(),
        [
            [0, 2, 4, 6, 8, 10, 12, 14],
            [1, 3, 5, 7, 9, 11, 13, 15],
            [16, 18, 20, 22, 24, 26, 28, 30],
            [17, 19, 21, 23, 25, 27, 29, 31],
        ],
    )
    for index in np.ndindex(4, 8):
        assert shape.linear_index(index) == expected[index]
    # (2,4) gives (2,2,2,4); (2,1) tiles its last two: (2,2) + (1,4) + (2,1)
    assert shape.tiled_shape == (2, 2, 1, 4, 2, 1)
    assert shape.to_tiled_view().shape == (2, 2, 1, 4, 2, 1)


def test_bf16_tpu_tiling_8_128_2_1():
    shape = parse("BF16[16,256]{1,0:T(8,128)(2,1)}")
    size, expected = oracle_linear_indices((16, 256), (1, 0), ((8, 128), (2, 1)))
    assert shape.buffer_size == size
    np.testing.assert_array_equal(shape.linear_indices(), expected)
    assert shape.itemsize == 2 and shape.buffer_size_in_bytes == 2 * 16 * 256


def test_alternative_16_bit_tiling_red_dot_is_51():
    # 8x8 tiled by (2,4)(2,1,1,1): element (6,5) -> (3,1,0,1) -> (1,1,0,1,1,0,0,0) -> 51
    shape = parse("F32[8,8]{1,0:T(2,4)(2,1,1,1)}")
    assert shape.linear_index((6, 5)) == 1 * 2 * 2 * 4 * 2 + 1 * 2 * 4 * 2 + 1 * 2 + 1 == 51
    assert shape.tiled_shape == (2, 2, 2, 4, 2, 1, 1, 1)
    size, expected = oracle_linear_indices((8, 8), (1, 0), ((2, 4), (2, 1, 1, 1)))
    np.testing.assert_array_equal(shape.linear_indices(), expected)


def test_combined_dimensions_example():
    # F32[2,7,8,11,10]{4,3,2,1,0} combined to F32[112,110]{1,0} and tiled with (2,3),
    # written T(*,*,2,*,3): 2*7*8 = 112, 11*10 = 110.
    text = "F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}"
    shape = parse(text)
    assert shape.tiles == ((COMBINE, COMBINE, 2, COMBINE, 3),)
    assert str(shape) == repr(shape) == text.replace("F32[", "f32[")  # XLA prints f32
    assert shape.tiled_shape == (56, 37, 2, 3)  # (ceil(112/2), ceil(110/3), 2, 3)
    assert shape.buffer_size == 56 * 37 * 2 * 3
    combined = parse("F32[112,110]{1,0:T(2,3)}")
    np.testing.assert_array_equal(shape.linear_indices().reshape(112, 110), combined.linear_indices())
    size, expected = oracle_linear_indices((2, 7, 8, 11, 10), (4, 3, 2, 1, 0), shape.tiles)
    assert size == shape.buffer_size
    np.testing.assert_array_equal(shape.linear_indices(), expected)
    a, b, c, d, e = 1, 6, 5, 9, 7
    row, col = (a * 7 + b) * 8 + c, d * 10 + e
    assert shape.linear_index((a, b, c, d, e)) == ((row // 2) * 37 + col // 3) * 6 + (row % 2) * 3 + col % 3


def test_combined_dimensions_in_xla_printer_examples():
    # XLA's layout_util_test: bf16[2,3,1004]{2,1,0:T(2,*,128)}, bf16[8,2,3,1004]{3,2,1,0:T(2,*,*,128)}
    for text, dims in (("BF16[2,3,1004]{2,1,0:T(2,*,128)}", (2, 3, 1004)), ("BF16[8,2,3,1004]{3,2,1,0:T(2,*,*,128)}", (8, 2, 3, 1004))):
        shape = parse(text)
        assert repr(shape) == text.replace("BF16[", "bf16[")
        size, expected = oracle_linear_indices(dims, shape.minor_to_major, shape.tiles)
        assert shape.buffer_size == size
        np.testing.assert_array_equal(shape.linear_indices(), expected)
    assert parse("bf16[2,3,1004]{2,1,0:T(2,*,128)}") == parse("BF16[2,3,1004]{2,1,0:T(2,*,128)}")


def test_xla_cpp_combine_marker_is_accepted():
    shape = XlaShape.create("F32", (3, 4), (1, 0), [(-(2**63), 4)])
    assert shape.tiles == ((COMBINE, 4),)
    assert repr(shape) == "f32[3,4]{1,0:T(*,4)}"
    assert parse("F32[3,4]{1,0:T(-1,4)}") == shape


# ---------------------------------------------------------------------------- notation
@pytest.mark.parametrize(
    "text",
    [
        "f32[3,5]{1,0:T(2,2)}",
        "f32[4,8]{1,0:T(2,4)(2,1)}",
        "f32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}",
        "f32[3,5]{1,0}",
        "f32[2,3]{0,1:pad(3,5)}",
        "f32[2,3]{0,1:pad(3,5;ZERO)}",
        "pred[8,8,8]{0,2,1:T(8,128)}",
        "s8[0,4]{0,1}",
        "f64[]",
        "bf16[7]{0:T(128)}",
    ],
)
def test_canonical_text_round_trips(text):
    shape = parse(text)
    assert repr(shape) == str(shape) == text
    assert parse(repr(shape)) == shape
    assert hash(parse(text)) == hash(shape)
    assert parse(text.upper().replace("PAD(", "pad(").replace("ZERO", "ZERO")) == shape  # any case reads


@pytest.mark.parametrize(
    "text",
    [
        "f32[3,5]",  # no layout in, none out (XLA's default {1,0} is not invented)
        "s32[]",
        "f8e4m3fn[2,4]{1,0}",
        "f8e5m2[16]{0}",
        "s4[16]{0:E(4)}",
        "u4[3,8]{1,0:T(8,128)(2,1)E(4)}",
        "f32[8,128]{1,0:T(8,128)S(1)}",
        "bf16[<=8,128]{1,0}",
        "f32[<=4,<=6]",
        "s32[4]{0:L(8)}",
        "f32[100]{0:#(s32)*(s64)}",
        "f32[16]{0:M(8)}",
        "(f32[3,5]{1,0}, s32[], (pred[2]{0}, bf16[4]))",
        "()",
        "token[]",
    ],
)
def test_xla_text_round_trips_byte_identical(text):
    shape = parse(text)
    assert repr(shape) == text
    assert parse(repr(shape)) == shape


@pytest.mark.parametrize(
    "text, message",
    [
        ("f32[?,5]", "dimensions [?,5] has '?', an unbounded dynamic dimension"),
        ("f32[8]{0:D(C)}", "layout attribute 'D(C)' is sparse dim level types D(...)"),
        ("f32[8]{0:SC(0:1)}", "layout attribute 'SC(0:1)' is split configs SC(...)"),
        ("f32[8]{0:P(s32[8]{0})}", "layout attribute 'P(s32[8]{0})' is a physical shape P(...)"),
    ],
)
def test_xla_fields_refused_with_their_name(text, message):
    with pytest.raises(NotRepresentableError, match=re.escape(message)):
        parse(text)


def test_non_canonical_text_is_canonicalised():
    assert repr(parse("F32[3,5]")) == "f32[3,5]"  # upper case reads; XLA prints lower case
    assert repr(parse("F32[3,5]{1,0:T(2,2)}")) == "f32[3,5]{1,0:T(2,2)}"
    assert repr(parse("  F32[3]{0}  ")) == "f32[3]{0}"
    assert repr(parse("F32[2,3]{1,0:pad(2,3)}")) == "f32[2,3]{1,0}"  # no padding at all
    assert repr(parse("F32[2,3]{1,0:pad(2,4;zero_pad)}")) == "f32[2,3]{1,0:pad(2,4;ZERO)}"
    assert repr(parse("F32[]{}")) == "f32[]"
    assert repr(parse("f32[2,3]{0,1:E(32)S(1)T(2,2)}")) == "f32[2,3]{0,1:T(2,2)E(32)S(1)}"  # XLA's attribute order


def test_values_are_frozen_and_hashable():
    shape = parse("F32[3,5]{1,0:T(2,2)}")
    with pytest.raises(AttributeError):
        shape.minor_to_major = (0, 1)
    assert {shape: 1}[XlaShape.create("f32", [3, 5], [1, 0], [[2, 2]])] == 1
    assert isinstance(shape.tiles[0], tuple)


NUMPY_NAMES = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
               "float32", "float64", "complex64", "complex128"}


@pytest.mark.parametrize("name", sorted(ELEMENT_TYPES))
def test_element_types_map_to_numpy(name):
    shape = parse(f"{name}[2]{{0}}")
    bits, numpy_name = ELEMENT_TYPES[name]
    assert shape.element_bits == max(bits, 8) if bits else shape.element_bits == 0  # sub-byte: one per byte
    if numpy_name is None:
        with pytest.raises(NotRepresentableError, match=re.escape(f"element_type {name} has no numpy dtype")):
            shape.dtype
    elif numpy_name in NUMPY_NAMES or importlib.util.find_spec("ml_dtypes"):
        assert shape.dtype.name == numpy_name and shape.dtype.itemsize == shape.itemsize
    else:
        with pytest.raises(NotRepresentableError, match=f"needs dtype {numpy_name}, which numpy lacks: install ml_dtypes"):
            shape.dtype


def test_required_element_types():
    expected = {"PRED": np.bool_, "S8": np.int8, "S16": np.int16, "S32": np.int32, "S64": np.int64,
                "U8": np.uint8, "U16": np.uint16, "U32": np.uint32, "U64": np.uint64,
                "F16": np.float16, "F32": np.float32, "F64": np.float64}
    for name, dtype in expected.items():
        assert parse(f"{name}[1]").dtype == np.dtype(dtype)
    assert parse("BF16[1]").itemsize == 2


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "text, message",
    [
        ("F32[3,5]{1,0:T(2,2", "layout '{1,0:T(2,2' is missing its closing '}', expected '{...}' in 'F32[3,5]{1,0:T(2,2'"),
        ("F32[3,5]{1,1}", "minor_to_major {1,1} is not a permutation of 0..1 in 'F32[3,5]{1,1}'"),
        ("F32[3,5]{0,2}", "minor_to_major {0,2} is not a permutation of 0..1 in 'F32[3,5]{0,2}'"),
        ("F32[3,5]{1,0,2}", "minor_to_major {1,0,2} has 3 entries but the shape has rank 2, expected one entry per dimension in 'F32[3,5]{1,0,2}'"),
        ("Q7[3]", "element_type 'q7' is not one of pred, s1, s2, s4, s8, s16, s32, s64, u1, u2, u4, u8"),
        ("F32[3,5]{1,0:T(0,2)}", "tiles[0] (0,2) has 0 at position 0, expected a size > 0 or * (-1: combine with the next minor dimension) in 'F32[3,5]{1,0:T(0,2)}'"),
        ("F32[3,5]{1,0:T(2,-3)}", "tiles[0] (2,-3) has -3 at position 1, expected a size > 0 or *"),
        ("F32[3,5]{1,0:T(2,2)(0)}", "tiles[1] (0) has 0 at position 0"),
        ("F32[3,5]{1,0:T(2,*)}", "tiles[0] (2,*) ends with *, expected a size after the last *"),
        ("F32[3,5]{1,0:T(2,2,2)}", "tiles[0] (2,2,2) has 3 entries but the array it tiles has rank 2, expected at most 2 in"),
        ("F32[3,5]{1,0:T(2,2)(1,1,1,1,1)}", "tiles[1] (1,1,1,1,1) has 5 entries but the array it tiles has rank 4"),
        ("F32[3,5]{1,0:T()}", "tiles[0] () is empty, expected at least one size"),
        ("F32[3,5]{1,0:T(2,x)}", "tile (2,x) has 'x', expected comma-separated integers or * in 'F32[3,5]{1,0:T(2,x)}'"),
        ("F32[3,5]{1,0:T(2,2}", "tile '(2,2' is missing its closing ')', expected '(size,...)' in 'F32[3,5]{1,0:T(2,2}'"),
        ("F32[2,3]{0,1:pad(1,5)}", "padded_dimensions (1,5) is smaller than dimensions [2,3] at dimension 0 (1 < 2), expected padded_dimensions >= dimensions in 'F32[2,3]{0,1:pad(1,5)}'"),
        ("F32[2,3]{0,1:pad(3)}", "padded_dimensions (3) has 1 entries but the shape has rank 2, expected one entry per dimension"),
        ("F32[2,3]{0,1:pad(3,5;SEVEN)}", "padding_value 'SEVEN' is not one of ZERO, ONE, LOWEST, HIGHEST, UNKNOWN"),
        ("F32[2,3]{0,1:pad(3,5)T(2,2)}", "padded_dimensions (3,5) together with tiles (2,2): expected one or the other"),
        ("F32[2,3]{0,1:Q(32)}", "layout attribute 'Q(32)' is not supported, expected T(...) tiles, L(n), #(type), *(type), E(n), S(n), M(n) or pad(...), once each, in 'F32[2,3]{0,1:Q(32)}'"),
        ("F32[2,3]{0,1:E(x)}", "element_size_in_bits 'E(x)' has 'x', expected an integer"),
        ("F32[2,3]{0,1:#(q9)}", "index_primitive_type 'q9' is not one of pred"),
        ("F32[2,3]{0,1:L(0)}", "tail_padding_alignment_in_elements is 0, expected >= 1"),
        ("(f32[2], s32[]", "tuple '(f32[2], s32[]' is missing its closing ')'"),
        ("F32[2,3]{0,1:}", "layout {0,1:} has an empty attribute list after ':'"),
        ("F32[2,x]", "dimensions [2,x] has 'x', expected comma-separated integers in 'F32[2,x]'"),
        ("F32[2,-3]", "dimensions [2,-3] has -3 at dimension 1, expected sizes >= 0 in 'F32[2,-3]'"),
        ("F32[2,3]{1;0}", "minor_to_major {1;0} has '1;0', expected comma-separated integers"),
        ("F32(2,3)", "shape 'F32(2,3)' is not an element type followed by [dimensions]"),
        ("F32[2,3]x", "layout 'x' does not start with '{'"),
    ],
)
def test_malformed_notation(text, message):
    with pytest.raises(InvalidLayoutError, match=re.escape(message)):
        parse(text)


def test_factory_errors_quote_the_whole_notation():
    with pytest.raises(InvalidLayoutError, match=re.escape("minor_to_major {1,1} is not a permutation of 0..1 in 'f32[3,5]{1,1}'")):
        XlaShape.create("F32", (3, 5), (1, 1))
    with pytest.raises(InvalidLayoutError, match=re.escape("tiles[0] (2,0) has 0 at position 1")):
        XlaShape.create("F32", (3, 5), tiles=[(2, 0)])
    with pytest.raises(InvalidLayoutError, match=re.escape("padding_value ZERO without padded_dimensions")):
        XlaShape.create("F32", (3, 5), padding_value="ZERO")
    with pytest.raises(ArgumentTypeError, match=re.escape("dimensions[1] is 'a' of type str, expected an integer")):
        XlaShape.create("F32", (3, "a"))
    with pytest.raises(ArgumentTypeError, match=re.escape("element_type 32 is not a string")):
        XlaShape.create(32, (3,))
    with pytest.raises(ArgumentTypeError, match=re.escape("text 7 is not a string")):
        parse(7)


def test_index_errors():
    shape = parse("F32[3,5]{1,0:T(2,2)}")
    with pytest.raises(IndexError, match=re.escape("index[1] is 5, expected 0 <= index[1] < 5")):
        shape.linear_index((0, 5))
    with pytest.raises(IndexError, match=re.escape("index has 1 entries but shape has rank 2")):
        shape.linear_index((0,))


# ---------------------------------------------------------------------------- not representable
def test_tiled_layout_has_no_same_rank_descriptor():
    with pytest.raises(NotRepresentableError, match=re.escape("expected one stride per dimension for a ShapeDescriptor of rank 2; use to_tiled_view()")):
        parse("F32[3,5]{1,0:T(2,2)}").to_shape_descriptor()


def test_tiles_that_change_nothing_do_have_a_descriptor():
    # T(1,5) on [3,5] and T(8) on [4,8] are plain row-major
    for text in ("F32[3,5]{1,0:T(1,5)}", "F32[4,8]{1,0:T(8)}", "F32[4,8]{0,1:T(1)}"):
        shape = parse(text)
        d = shape.to_shape_descriptor()
        for index in np.ndindex(*shape.dimensions):
            assert d.element_offset(index) == shape.linear_index(index)
    assert parse("F32[3,5]{1,0:T(1,5)}").to_shape_descriptor() == ShapeDescriptor.create((3, 5))


def test_inner_tile_that_does_not_divide_has_no_strided_view():
    shape = parse("F32[4,8]{1,0:T(2,4)(3,1)}")
    size, expected = oracle_linear_indices((4, 8), (1, 0), shape.tiles)  # valid for XLA
    np.testing.assert_array_equal(shape.linear_indices(), expected)
    with pytest.raises(NotRepresentableError, match=re.escape("tile (3,1) splits an axis of sizes (2,) by 3, which does not divide them")):
        shape.to_tiled_view()


def test_combined_dimensions_split_unevenly_have_no_strided_view():
    with pytest.raises(NotRepresentableError, match=re.escape("tile (*,*,2,*,3) splits an axis of sizes (11, 10) by 3")):
        parse("F32[2,7,8,11,10]{4,3,2,1,0:T(*,*,2,*,3)}").to_tiled_view()
    # merged dimensions split on a boundary are fine: [4,6] -> 24 by 2 = (4, 6/2) x 2
    shape = parse("F32[4,6]{1,0:T(*,2)}")
    view = shape.to_tiled_view()
    assert view.shape == (4, 3, 2) and view.strides == (6, 2, 1)
    check_view(shape, view)


def test_token_has_no_numpy_descriptor():
    with pytest.raises(NotRepresentableError, match=re.escape("element_type token has no numpy dtype, expected one of pred")):
        parse("token[]").to_shape_descriptor()


def test_bf16_and_f8_descriptors_through_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes", reason="ml_dtypes (optional) gives numpy bfloat16 and float8 types")
    d = parse("bf16[2,3]{0,1}").to_shape_descriptor()
    assert d.dtype == np.dtype(ml_dtypes.bfloat16) and d.strides == (1, 2)
    assert parse("f8e4m3fn[4]{0}").to_shape_descriptor().dtype == np.dtype(ml_dtypes.float8_e4m3fn)
    assert repr(XlaShape.from_shape_descriptor(d)) == "bf16[2,3]{0,1}"
    with pytest.raises(NotRepresentableError, match=re.escape("element_size_in_bits E(4) differs from the numpy itemsize 1")):
        parse("s4[8]{0:E(4)}").to_shape_descriptor()


def test_packed_sub_byte_buffer_sizes():
    assert parse("s4[16]{0:E(4)}").buffer_size_in_bytes == 8
    assert parse("s4[16]{0}").buffer_size_in_bytes == 16  # one per byte unless E(4) packs them
    assert parse("s32[5]{0:L(8)}").buffer_size == 8  # tail padding alignment


@pytest.mark.parametrize(
    "descriptor, message",
    [
        (ShapeDescriptor.create((2, 3), paddings=(1, 1), padding_offsets=(1, 0)), "offset is 4, expected 0: an XLA buffer starts at element 0"),
        (ShapeDescriptor.create((3,), strides=(2,)), "strides (2,) (alloc_size 5) do not nest along minor_to_major {0}: dimension 0 has stride 2, expected 1"),
        (ShapeDescriptor.create((3,), strides=(-1,), offset=2, alloc_size=3), "offset is 2, expected 0"),
        (ShapeDescriptor.create((2, 3), strides=(0, 1)), "do not nest along minor_to_major {0,1}"),
        (ShapeDescriptor.create((2, 3), "int8", strides=(3, 1), alloc_size=7), "strides (3, 1) (alloc_size 7) do not nest along minor_to_major {1,0}: dimension 0 has stride 3"),
    ],
)
def test_descriptors_xla_cannot_express(descriptor, message):
    with pytest.raises(NotRepresentableError, match=re.escape(message)):
        XlaShape.from_shape_descriptor(descriptor)


def test_view_that_is_not_an_xla_tiling():
    good = parse("F32[3,5]{1,0:T(2,2)}").to_tiled_view()
    transposed = TiledView(good.dimensions, good.shape, (12, 4, 1, 2), good.axis_dims, good.axis_divisors)
    with pytest.raises(NotRepresentableError, match=re.escape("view differs from f32[3,5]{1,0:T(2,2)}")):
        XlaShape.from_tiled_view(transposed)
    repeated = parse("F32[4,8]{1,0:T(2,4)(2,1)}").to_tiled_view()
    with pytest.raises(NotRepresentableError, match=re.escape("view is not a single-level XLA tiling")):
        XlaShape.from_tiled_view(repeated)
    with pytest.raises(NotRepresentableError, match=re.escape("the first 2 axes of the view read dimensions (0, 0)")):
        XlaShape.from_tiled_view(TiledView((3, 5), (2, 2, 3, 2), (12, 6, 2, 1), (0, 0, 1, 1), (2, 1, 2, 1)))
    with pytest.raises(InvalidLayoutError, match=re.escape("strides has 1 entries but shape has 2")):
        TiledView((3,), (2, 2), (2,), (0, 0), (2, 1))


# ---------------------------------------------------------------------------- ShapeDescriptor
@pytest.mark.parametrize(
    "descriptor, text",
    [
        (ShapeDescriptor.create((2, 3)), "f32[2,3]{1,0}"),
        (ShapeDescriptor.create((2, 3), order="f"), "f32[2,3]{0,1}"),
        (ShapeDescriptor.create((2, 3, 4), "int16", strides=(1, 8, 2)), "s16[2,3,4]{0,2,1}"),
        (ShapeDescriptor.create((2, 3), "float64", paddings=(1, 2), padding_offsets=(0, 0)), "f64[2,3]{1,0:pad(3,5)}"),
        (ShapeDescriptor.create((2, 3), "bool", "f", paddings=(1, 2), padding_offsets=(0, 0)), "pred[2,3]{0,1:pad(3,5)}"),
        (ShapeDescriptor.create((), "uint8"), "u8[]"),
    ],
)
def test_descriptor_round_trip(descriptor, text):
    shape = XlaShape.from_shape_descriptor(descriptor)
    assert repr(shape) == text
    assert shape.to_shape_descriptor() == descriptor


def test_descriptor_from_numpy_transpose():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4).transpose(2, 0, 1)
    d = ShapeDescriptor.create(a.shape, a.dtype, strides=[s // a.itemsize for s in a.strides], alloc_size=a.size)
    shape = XlaShape.from_shape_descriptor(d)
    assert repr(shape) == "f32[4,2,3]{0,2,1}"
    flat = a.ravel(order="K")  # memory order of the base buffer
    for index in np.ndindex(*a.shape):
        assert flat[shape.linear_index(index)] == a[index]


# ---------------------------------------------------------------------------- properties
@st.composite
def xla_shapes(draw, kinds=("plain", "padded", "tiled"), min_size=0, combine=True):
    rank = draw(st.integers(0, 4))
    dims = tuple(draw(st.lists(st.integers(min_size, 5), min_size=rank, max_size=rank)))
    m2m = tuple(draw(st.permutations(range(rank))))
    element_type = draw(st.sampled_from(sorted(ELEMENT_TYPES)))
    kind = draw(st.sampled_from(kinds))
    if kind == "padded" and rank:
        pads = draw(st.lists(st.integers(0, 2), min_size=rank, max_size=rank))
        value = draw(st.sampled_from((None,) + xla.PADDING_VALUES))
        padded = tuple(d + p for d, p in zip(dims, pads))
        return XlaShape.create(element_type, dims, m2m, padded_dimensions=padded, padding_value=value if padded != dims else None)
    tiles = []
    if kind == "tiled" and rank:
        current = rank
        for _ in range(draw(st.integers(1, 2))):
            k = draw(st.integers(1, min(current, 4)))
            sizes = st.integers(1, 4) | st.just(COMBINE) if combine else st.integers(1, 4)
            tile = draw(st.lists(sizes, min_size=k - 1, max_size=k - 1)) + [draw(st.integers(1, 4))]
            tiles.append(tuple(tile))
            current += 2 * sum(1 for t in tile if t != COMBINE) - len(tile)
    return XlaShape.create(element_type, dims, m2m, tiles)


def check_view(shape, view):
    """as_strided over np.arange(buffer_size) as the oracle: each logical index's view
    coordinates, (index[dim] // divisor) % size, must hold its linear index."""
    buffer = np.arange(shape.buffer_size, dtype=np.int64)
    strided = np.lib.stride_tricks.as_strided(buffer, view.shape, view.strides_in_bytes(buffer.itemsize))
    assert math.prod(view.shape) == shape.buffer_size
    for index in np.ndindex(*shape.dimensions):
        coords = tuple((index[d] // w) % n for d, w, n in zip(view.axis_dims, view.axis_divisors, view.shape))
        assert strided[coords] == shape.linear_index(index) == view.element_offset(index)


@given(xla_shapes())
def test_linear_index_is_a_bijection_matching_the_numpy_oracle(shape):
    linear = shape.linear_indices()
    assert linear.shape == shape.dimensions
    flat = linear.reshape(-1)
    assert len(np.unique(flat)) == flat.size == shape.size
    assert flat.size == 0 or (flat.min() >= 0 and flat.max() < shape.buffer_size)
    size, expected = oracle_linear_indices(shape.dimensions, shape.minor_to_major, shape.tiles, shape.padded_dimensions)
    assert size == shape.buffer_size == math.prod(shape.tiled_shape)
    np.testing.assert_array_equal(linear, expected)
    for index in np.ndindex(*shape.dimensions):
        assert shape.linear_index(index) == linear[index]


@given(xla_shapes())
def test_strided_view_agrees_with_linear_index(shape):
    try:
        view = shape.to_tiled_view()
    except NotRepresentableError:
        # only later tiles or merged dimensions can split an axis unevenly
        assert len(shape.tiles) > 1 or COMBINE in shape.tiles[0]
        return
    check_view(shape, view)


@given(xla_shapes(combine=False))
def test_single_level_tiling_view_round_trips(shape):
    if len(shape.tiles) > 1:
        shape = XlaShape.create(shape.element_type, shape.dimensions, shape.minor_to_major, shape.tiles[:1])
    view = shape.to_tiled_view()
    assert len(view.shape) == shape.rank + sum(len(t) for t in shape.tiles)
    tile = shape.tiles[0] if shape.tiles else ()
    phys, k = shape.physical_dimensions, len(tile)
    # (d_n, ..., ceil(d_k/t_k), ..., ceil(d_1/t_1), t_k, ..., t_1)
    counts = phys[: shape.rank - k] + tuple(-(-n // t) for n, t in zip(phys[shape.rank - k :], tile))
    assert view.shape == counts + tile
    back = XlaShape.from_tiled_view(view, shape.element_type)
    assert back.padding_value is None  # a view has no padding value
    assert back == XlaShape.create(shape.element_type, shape.dimensions, shape.minor_to_major, shape.tiles, shape.padded_dimensions or None)
    check_view(shape, view)


@given(xla_shapes())
def test_notation_round_trips(shape):
    text = repr(shape)
    assert parse(text) == shape
    assert repr(parse(text)) == text
    upper = text.replace(shape.element_type + "[", shape.element_type.upper() + "[", 1)
    assert parse(upper) == shape  # upper case reads too; XLA itself prints f32[...], bf16[...]


@given(xla_shapes(kinds=("plain", "padded"), min_size=1))
def test_untiled_layout_and_descriptor_round_trip(shape):
    try:
        shape.dtype  # token, s1, u1 have none; bf16, f8*, s4... only with ml_dtypes
    except NotRepresentableError:
        shape = XlaShape.create("F32", shape.dimensions, shape.minor_to_major, padded_dimensions=shape.padded_dimensions or None, padding_value=shape.padding_value)
    d = shape.to_shape_descriptor()
    assert d.alloc_size == shape.buffer_size and d.offset == 0
    for index in np.ndindex(*shape.dimensions):
        assert d.element_offset(index) == shape.linear_index(index)
    back = XlaShape.from_shape_descriptor(d)
    assert back.to_shape_descriptor() == d
    np.testing.assert_array_equal(back.linear_indices(), shape.linear_indices())
    if all(n > 1 for n in shape.bounds):  # no stride ties: the layout itself comes back
        assert XlaShape.create(back.element_type, back.dimensions, back.minor_to_major, padded_dimensions=back.padded_dimensions or None, padding_value=shape.padding_value) == shape


@given(
    st.lists(st.integers(1, 4), min_size=1, max_size=4).flatmap(
        lambda dims: st.tuples(st.just(tuple(dims)), st.permutations(range(len(dims))), st.lists(st.integers(0, 2), min_size=len(dims), max_size=len(dims)))
    )
)
def test_padded_descriptor_to_xla_and_back(args):
    dims, order, pads = args
    # a libnd4j-style padded buffer laid out along an arbitrary dimension order
    padded = [n + p for n, p in zip(dims, pads)]
    strides, step = [0] * len(dims), 1
    for dim in order:
        strides[dim], step = step, step * padded[dim]
    d = ShapeDescriptor.create(dims, "float32", strides=strides, alloc_size=step)
    shape = XlaShape.from_shape_descriptor(d)
    assert shape.to_shape_descriptor() == d
    for index in np.ndindex(*dims):
        assert shape.linear_index(index) == d.element_offset(index)


def test_empty_untiled_layout_to_descriptor_and_back():
    shape = parse("F32[0,3]{1,0}")
    d = shape.to_shape_descriptor()
    assert d == ShapeDescriptor.create((0, 3), strides=(3, 1), alloc_size=0)
    assert XlaShape.from_shape_descriptor(d) == shape
    assert shape.buffer_size == 0 and shape.linear_indices().shape == (0, 3)
