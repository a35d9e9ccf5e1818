"""Issue 16, part 3: a padding report is true. ``NdArray.padding_is_free`` says whether the
cells outside an array's elements belong to nobody; ``free_padding_mask()`` says which do.
Memory brought in (a user's numpy view) never reports free padding."""

import numpy as np
import pytest

from ndarray import NdArray


def test_fresh_allocations_have_free_padding():
    a = NdArray.zeros((4, 6), paddings=(2, 3), padding_offsets=(1, 1))
    assert a.padding_is_free
    np.testing.assert_array_equal(a.free_padding_mask(), a.padding_mask())
    for made in (NdArray((2, 3)), NdArray.empty((2, 3), paddings=(1, 1)), NdArray.full((2, 3), 1.0, paddings=(0, 2)),
                 a.contiguous("c", paddings=(1, 0)), a.copy(), a.astype("int32")):
        assert made.padding_is_free, made


def test_views_that_keep_every_element_keep_free_padding():
    a = NdArray.zeros((4, 6), paddings=(2, 3), padding_offsets=(1, 1))
    assert a.reshape(4, 6).padding_is_free and a[...].padding_is_free and a[:, :].padding_is_free
    # slicing loses elements of `a`: the cells around the slice hold them
    s = a[1:3, 2:5]
    assert s.descriptor.has_padded_buffer and not s.padding_is_free
    free = s.free_padding_mask()
    assert not free[s.padding_mask() & ~a.padding_mask()].any()  # a's elements are not free
    np.testing.assert_array_equal(free, a.padding_mask())         # a's padding still is


def test_user_numpy_views_never_report_free_padding():
    x = np.arange(144, dtype=np.float32).reshape(12, 12)
    centre = NdArray.from_numpy(x[2:10, 2:10])
    assert centre.descriptor.paddings == (4, 4)  # recovered from the strides...
    assert not centre.padding_is_free            # ...but those cells are x's other elements
    assert not centre.free_padding_mask().any()
    cube = np.zeros((4, 6, 8), np.float32)
    transposed = NdArray.from_numpy(cube.transpose(1, 0, 2))
    assert not transposed.padding_is_free and not transposed.free_padding_mask().any()
    assert not NdArray.from_numpy(x).padding_is_free  # memory brought in: owner unknown
    assert "not free" in repr(centre)


def test_explicit_layouts_never_report_free_padding():
    a = NdArray.zeros((4, 6, 8))
    t = a.transpose(1, 0, 2)  # every element kept, but the strides leave gaps of elements
    assert t.descriptor.explicit is not None and not t.padding_is_free
    assert not a[:, ::2].padding_is_free
    assert not a.broadcast_to((2, 4, 6, 8)).padding_is_free


def test_wrapped_allocation_is_not_known_free_unless_declared():
    a = NdArray.zeros((2, 3), paddings=(1, 1))
    assert not NdArray(a.allocation, a.descriptor).padding_is_free
    owned = NdArray(a.allocation, a.descriptor, owns_padding=True)  # "those bytes are mine to lose"
    assert owned.padding_is_free and not owned[1:].padding_is_free
    np.testing.assert_array_equal(owned.free_padding_mask(), a.padding_mask())


@pytest.mark.parametrize("offsets", [(0, 0), (1, 2), (2, 3)])
def test_fill_padding_of_free_padding_leaves_elements(offsets):
    a = NdArray.zeros((3, 4), "int32", paddings=(2, 3), padding_offsets=offsets)
    a.numpy()[...] = np.arange(12).reshape(3, 4)
    a.buffer()[a.free_padding_mask()] = -1
    np.testing.assert_array_equal(a.numpy(), np.arange(12).reshape(3, 4))
    assert (a.buffer()[a.padding_mask()] == -1).all()
