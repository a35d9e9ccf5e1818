"""``ndarray.dense_strides`` and ``ndarray.recover_padding`` against numpy (issue 41: public
surface with no test of its own): numpy's own strides of packed arrays, and padded buffers
made by slicing a larger numpy array, whose paddings and offsets the test knows."""

import numpy as np
import pytest

from ndarray import dense_strides, recover_padding


def _shapes(rng, count, zeros=False):
    for _ in range(count):
        rank = int(rng.integers(1, 5))
        yield tuple(int(n) for n in rng.integers(0 if zeros else 1, 6, rank))


@pytest.mark.parametrize("order", ["c", "f"])
def test_dense_strides_are_numpys(order):
    rng = np.random.default_rng(0)
    for shape in _shapes(rng, 200):
        a = np.empty(shape, np.int16, order=order.upper())
        assert dense_strides(shape, order) == tuple(s // a.itemsize for s in a.strides), shape


def test_dense_strides_of_an_order_sequence_are_numpys_transposed_array():
    """(1, 3, 2, 0), innermost first: channels_last of an NCHW shape is numpy's NHWC array seen
    as NCHW."""
    rng = np.random.default_rng(1)
    for shape in _shapes(rng, 100):
        if len(shape) != 4:
            continue
        n, c, h, w = shape
        nhwc = np.empty((n, h, w, c), np.float32).transpose(0, 3, 1, 2)
        assert dense_strides(shape, (1, 3, 2, 0)) == tuple(s // 4 for s in nhwc.strides), shape


def test_dense_strides_size_zero_as_one():
    assert dense_strides((2, 0, 3), "c") == (0, 3, 1)
    assert dense_strides((2, 0, 3), "c", size_zero_as_one=True) == (3, 3, 1)
    assert dense_strides((0, 4), "f", size_zero_as_one=True) == (1, 1)


@pytest.mark.parametrize("order", ["c", "f"])
def test_recover_padding_gives_back_the_padding_of_a_sliced_numpy_buffer(order):
    rng = np.random.default_rng(2)
    for shape in _shapes(rng, 300):
        pads = tuple(int(p) for p in rng.integers(0, 4, len(shape)))
        offs = tuple(int(rng.integers(0, p + 1)) for p in pads)
        big = np.zeros(tuple(n + p for n, p in zip(shape, pads)), np.int32, order=order.upper())
        view = big[tuple(slice(o, o + n) for o, n in zip(offs, shape))]
        strides = tuple(s // 4 for s in view.strides)
        offset = (view.__array_interface__["data"][0] - big.__array_interface__["data"][0]) // 4
        assert recover_padding(shape, strides, offset, big.size, order) == (pads, offs), (shape, pads, offs)


def test_recover_padding_refuses_what_is_no_padded_buffer():
    assert recover_padding((2, 3), (1, 2), 0, 6, "c") is None          # transposed: innermost stride 2
    assert recover_padding((2, 3), (4, 1), 0, 7, "c") is None          # 7 is no whole number of rows
    assert recover_padding((2, 3), (2, 1), 0, 4, "c") is None          # rows shorter than the shape
    assert recover_padding((2, 3), (4, 1), 2, 8, "c") is None          # offset 2 pushes a row past its end
    assert recover_padding((2, 3), (4, 1), 1, 12, "c") == ((1, 1), (0, 1))
    assert recover_padding((), (), 0, 1, "c") == ((), ())
    assert recover_padding((), (), 1, 2, "c") is None
    assert recover_padding((0, 3), (3, 1), 0, 0, "c") is None


# ---------------------------------------------------------------------------- worked examples
# The source documents' numbers (/work/shared/seeds, indexed in its README), as they print them.
@pytest.mark.parametrize("shape, order, strides, source", [
    ((3, 4, 2), "c", (8, 2, 1), "004, libnd4j ADR: shapes [3,4,2], C order"),
    ((2, 2, 5, 5), "c", (50, 25, 5, 1), "004: shapeInfo [4, 2,2,5,5, 50,25,5,1, 8192,1,99]"),
    ((5, 5, 2, 2), "f", (1, 5, 25, 50), "004: ACL's TensorShape {x,y,z,n}, strides as elements (1,5,25,50)"),
    ((2, 2, 3), "c", (6, 3, 1), "000, DirectML: DHW 2x2x3 packed strides {6,3,1}"),
    ((1, 1, 3, 5), (1, 3, 2, 0), (15, 1, 5, 1), "000: NHWC {1,1,3,5} strides {15,1,5,1}"),
    ((1, 64, 5, 4), "c", (1280, 20, 4, 1), "003, PyTorch: (1,64,5,4) contiguous"),
    ((1, 64, 5, 4), (1, 3, 2, 0), (1280, 1, 256, 64), "003: the same tensor channels_last"),
    ((2, 3), "f", (1, 2), "001, XLA: [2x3] with minor_to_major [0,1] reads a d b e c f"),
])
def test_dense_strides_of_the_worked_examples(shape, order, strides, source):
    assert dense_strides(shape, order) == strides, source


@pytest.mark.parametrize("strides, offset, alloc_size, recovered, source", [
    ((50, 25, 5, 1), 0, 100, ((0, 0, 0, 0), (0, 0, 0, 0)), "004: the dense 2x2x5x5 (400 bytes)"),
    ((72, 36, 6, 1), 0, 144, ((0, 0, 1, 1), (0, 0, 0, 0)), "004: ACL padding right 1 bottom 1 (576 bytes)"),
    ((1170, 585, 45, 1), 184, 2340, ((0, 0, 8, 40), (0, 0, 4, 4)),
     "004: ACL auto padding (4,36,4,4): offset 736 bytes, total 9360 bytes"),
])
def test_recover_padding_of_the_adrs_examples(strides, offset, alloc_size, recovered, source):
    """The ADR's pseudo-code on its own 2x2x5x5 float examples (sizes in bytes / 4 = elements)."""
    assert recover_padding((2, 2, 5, 5), strides, offset, alloc_size, "c") == recovered, source


def test_recover_padding_of_xlas_padded_dimensions():
    """001: [2x3] in padded_dimensions [3,5] is a 15-element buffer, row-major: strides (5, 1)."""
    assert recover_padding((2, 3), (5, 1), 0, 15, "c") == ((1, 2), (0, 0))
