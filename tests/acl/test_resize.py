"""Resize (ACL's NEScale) element by element against TFLite's bilinear formula in numpy
(``acl_bridge.models.numpy_executor.resize_bilinear``, itself checked against TFLite's
interpreter on the host): several shapes and scales, the three sampling grids, NCHW and NHWC,
on dense, padded and offset NdArrays (padding cells and guard bytes unchanged) and on
negotiated bridge buffers (0 bytes copied per run)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ndarray import ShapeDescriptor
from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

from .helpers import Guarded, arange_values

pytestmark = pytest.mark.acl

GRIDS = {"half_pixel": dict(half_pixel_centers=True), "align_corners": dict(align_corners=True),
         "top_left": dict()}
# (N, H, W, C) in, (H, W) out: the full-range model's 2x upsamplings, downscaling, odd ratios
SHAPES = [((1, 6, 6, 5), (12, 12)), ((1, 12, 12, 3), (24, 24)), ((2, 8, 10, 3), (4, 5)),
          ((1, 5, 7, 4), (11, 3)), ((1, 4, 4, 1), (1, 1))]
TOLERANCE = 1e-4  # float32 interpolation of values below 30 against float64


def reference(x_nhwc, out_hw, grid):
    from acl_bridge.models.numpy_executor import resize_bilinear

    return resize_bilinear(x_nhwc, out_hw, **GRIDS[grid])


def _shapes(src_nhwc, out_hw, layout):
    n, h, w, c = src_nhwc
    dst_nhwc = (n, *out_hw, c)
    if layout == "NHWC":
        return src_nhwc, dst_nhwc
    return (n, c, h, w), (n, c, *out_hw)


def _expected(x, out_hw, grid, layout):
    if layout == "NHWC":
        return reference(x, out_hw, grid)
    return reference(x.transpose(0, 2, 3, 1), out_hw, grid).transpose(0, 3, 1, 2)


@pytest.mark.parametrize("grid", sorted(GRIDS))
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("shapes", SHAPES, ids=[f"{s[1]}x{s[2]}to{o[0]}x{o[1]}" for s, o in SHAPES])
@pytest.mark.parametrize("variant", ["contiguous", "padded", "offset"])
def test_resize_matches_tflites_formula(shapes, layout, grid, variant):
    from acl_bridge import Resize

    src_shape, dst_shape = _shapes(*shapes, layout)
    x = arange_values(src_shape, modulo=37, scale=0.5)
    src = Guarded(src_shape, variant=variant).set(x)
    dst = Guarded(dst_shape, variant=variant).set(np.full(dst_shape, -7.0, np.float32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a staged plan is allowed here; its copies are counted
        f = Resize(src.array, dst.array, data_layout=layout, **GRIDS[grid])
    f.run()
    want = _expected(x, shapes[1], grid, layout)
    got = dst.numpy()
    assert np.abs(got - want).max() <= TOLERANCE, (f.plan.describe(), np.argwhere(np.abs(got - want) > TOLERANCE)[:5])
    assert src.untouched() and dst.untouched(), (src.changed_outside()[:8], dst.changed_outside()[:8])
    assert np.array_equal(src.numpy(), x)
    f.close()


@pytest.mark.parametrize("grid", sorted(GRIDS))
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_negotiated_buffers_copy_nothing(layout, grid):
    from acl_bridge import Resize, total_copy_count

    src_shape, dst_shape = _shapes((1, 6, 6, 5), (12, 12), layout)
    s, d = ShapeDescriptor.create(src_shape, "float32"), ShapeDescriptor.create(dst_shape, "float32")
    pads = Resize.required_padding(s, d, data_layout=layout, **GRIDS[grid])
    src = Guarded(src_shape, padding=pads["src"], bridge=True)
    dst = Guarded(dst_shape, padding=pads["dst"], bridge=True)
    x = arange_values(src_shape, modulo=29, scale=0.25)
    src.set(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # staging would warn: fail instead
        f = Resize(src.array, dst.array, data_layout=layout, **GRIDS[grid])
    assert f.staged == () and f.plan.copies_per_run == 0, f.plan.describe()
    before = total_copy_count()
    f.run()
    f.run()
    assert f.copy_count == 0 and total_copy_count() == before
    assert f.tensors["src"].data_ptr == src.array.data_ptr and f.tensors["dst"].data_ptr == dst.array.data_ptr
    assert np.abs(dst.numpy() - _expected(x, (12, 12), grid, layout)).max() <= TOLERANCE
    assert src.untouched() and dst.untouched()
    f.close()


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_nearest_on_a_2x_grid(layout):
    """Nearest with half-pixel centres on exact 2x scales: src = floor((dst + 0.5) * in / out)
    (the rule TFLite's and ACL's nearest agree on there)."""
    from acl_bridge import Resize

    for (src_nhwc, out_hw) in (((1, 4, 6, 3), (8, 12)), ((1, 8, 6, 2), (4, 3))):
        src_shape, dst_shape = _shapes(src_nhwc, out_hw, layout)
        x = arange_values(src_shape)
        y = np.zeros(dst_shape, np.float32)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Resize(x, y, interpolation="nearest", half_pixel_centers=True, data_layout=layout).run()
        h_axis = 1 if layout == "NHWC" else 2
        iy = np.floor((np.arange(out_hw[0]) + 0.5) * src_nhwc[1] / out_hw[0]).astype(int)
        ix = np.floor((np.arange(out_hw[1]) + 0.5) * src_nhwc[2] / out_hw[1]).astype(int)
        want = np.take(np.take(x, iy, axis=h_axis), ix, axis=h_axis + 1)
        np.testing.assert_array_equal(y, want)


def test_bad_options_raise_the_librarys_errors():
    from acl_bridge import Resize

    x, y = np.zeros((1, 4, 4, 2), np.float32), np.zeros((1, 8, 8, 2), np.float32)
    with pytest.raises(UnsupportedOptionError, match=r"interpolation is 'cubic', expected one of \['bilinear', 'nearest'\]"):
        Resize(x, y, interpolation="cubic", data_layout="NHWC")
    with pytest.raises(UnsupportedOptionError, match="align_corners=True with half_pixel_centers=True"):
        Resize(x, y, align_corners=True, half_pixel_centers=True, data_layout="NHWC")
    with pytest.raises(ArgumentTypeError, match="align_corners and half_pixel_centers must be bool"):
        Resize(x, y, align_corners=1, data_layout="NHWC")
