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
