"""Issue 16: bytes that may belong to other elements of the caller's memory are never offered
to ACL as writable, whatever the flags. The case measured on ACL 20.08 (max pooling 3x3,
stride 1, pad 1, on the centre 8x8 of a 12x12 numpy array, allow_padding_writes=True, once
overwrote 44 elements outside the view), and views of a parent as the output (sliced and
transposed): every byte of the parent outside the elements ACL must write is unchanged, and
the result is numpy's, on both ACL versions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytestmark = pytest.mark.acl


def maxpool3x3(x):
    p = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    return np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(2, 3)).max(axis=(-1, -2))


def parent_and_view(kind):
    parent = (np.arange(12 * 12, dtype=np.float32).reshape(1, 1, 12, 12) % 13) - 6
    if kind == "sliced":
        return parent, parent[:, :, 2:10, 2:10]
    return parent, parent.transpose(0, 1, 3, 2)[:, :, 2:10, 2:10]  # "transposed"


def outside(parent, view):
    """Mask of the parent's elements that are not elements of the view."""
    mask = np.ones(parent.shape, bool)
    flat = np.arange(parent.size).reshape(parent.shape)
    base = view.__array_interface__["data"][0] - parent.__array_interface__["data"][0]
    idx = np.lib.stride_tricks.as_strided(flat.reshape(-1)[base // 4:], view.shape,
                                          tuple(s // 4 * 8 for s in view.strides))
    mask.reshape(-1)[idx.reshape(-1)] = False
    return mask


@pytest.mark.parametrize("allow", [False, True])
def test_centre_view_as_source_keeps_the_parent(allow):
    from acl_bridge.functions import Pooling

    parent, view = parent_and_view("sliced")
    before = parent.copy()
    dst = np.zeros((1, 1, 8, 8), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = Pooling(view, dst, pool_type="max", kernel=3, stride=1, padding=1, allow_padding_writes=allow)
    f.run()
    np.testing.assert_array_equal(parent, before)  # not one byte of the caller's array changed
    np.testing.assert_array_equal(dst, maxpool3x3(before[:, :, 2:10, 2:10]))


@pytest.mark.parametrize("kind", ["sliced", "transposed"])
def test_view_as_output_writes_only_its_elements(kind):
    from acl_bridge.functions import Pooling

    parent, view = parent_and_view(kind)
    before = parent.copy()
    src = (np.arange(64, dtype=np.float32).reshape(1, 1, 8, 8) % 7) - 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = Pooling(src, view, pool_type="max", kernel=3, stride=1, padding=1, allow_padding_writes=True)
    f.run()
    keep = outside(parent, view)
    np.testing.assert_array_equal(parent[keep], before[keep])
    np.testing.assert_array_equal(view, maxpool3x3(src))
