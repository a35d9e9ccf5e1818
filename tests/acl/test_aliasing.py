"""Aliasing between a function's tensors: in-place element-wise calls work, overlap is refused."""

import numpy as np
import pytest

from ndarray import InvalidLayoutError, NdArray

pytestmark = pytest.mark.acl


def test_in_place_activation_matches_numpy():
    from acl_bridge import Activation

    x = NdArray.full((2, 3, 5), 0.0, paddings=(0, 0, 3), padding_value=7.0)
    x.numpy()[...] = np.arange(30, dtype=np.float32).reshape(2, 3, 5) - 15
    expected = np.maximum(x.numpy(), 0)
    f = Activation(x, x, "relu")
    f.run()
    assert f.staged == ()
    np.testing.assert_array_equal(x.numpy(), expected)
    assert (x.buffer()[x.padding_mask()] == 7.0).all()


def test_in_place_add_matches_numpy():
    from acl_bridge import Add

    a = NdArray.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4))
    b = NdArray.from_numpy(np.full((3, 4), 0.5, np.float32))
    expected = a.numpy() + b.numpy()
    Add(a, b, a).run()
    np.testing.assert_array_equal(a.numpy(), expected)


def test_disjoint_views_of_one_buffer_are_fine():
    from acl_bridge import Copy

    buf = NdArray.from_numpy(np.arange(16, dtype=np.float32).reshape(2, 8))
    Copy(buf[0:1], buf[1:2]).run()
    np.testing.assert_array_equal(buf.numpy()[1], np.arange(8))


def test_in_place_is_refused_where_the_kernel_is_not_element_wise():
    from acl_bridge import Softmax

    x = NdArray.from_numpy(np.arange(16, dtype=np.float32).reshape(2, 8))
    before = x.allocation.copy()
    with pytest.raises(InvalidLayoutError, match=r"dst overlaps src in memory; softmax does not support in-place"):
        Softmax(x, x)
    assert np.array_equal(x.allocation, before)
