"""Resize (ACL's NEScale) beyond the case table: bilinear against TFLite's formula in every
shape, grid, data layout and buffer layout (negotiated bridge buffers copying nothing
included) is rows of tests/function_cases.py, run by tests/acl/test_functions.py on NEON and
tests/cl/test_cl_functions.py on CL. Here: nearest on exact 2x grids, and bad options
raising the library's errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

from .helpers import arange_values

pytestmark = pytest.mark.acl


def _shapes(src_nhwc, out_hw, layout):
    n, h, w, c = src_nhwc
    dst_nhwc = (n, *out_hw, c)
    if layout == "NHWC":
        return src_nhwc, dst_nhwc
    return (n, c, h, w), (n, c, *out_hw)


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
