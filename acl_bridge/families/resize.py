"""The resize room (native/acl_shim_resize.cpp): Resize (ACL's Scale: bilinear or nearest,
on TFLite's sampling grids)."""

from __future__ import annotations

from typing import Tuple

from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

from .. import abi, functions
from ..functions import AclFunction


class Resize(AclFunction):
    """dst = src resized to dst's height and width (NCHW or NHWC numpy shapes), ACL's
    NEScale/CLScale. ``interpolation``: "bilinear" or "nearest". The sampling grid is
    TFLite's (``tf.image.resize`` v1 options):

    * ``half_pixel_centers=True``: src = (dst + 0.5) * in / out - 0.5 (ACL's CENTER sampling);
    * ``align_corners=True``: src = dst * (in - 1) / (out - 1) (TOP_LEFT, ACL's align_corners);
    * neither: src = dst * in / out (TOP_LEFT).

    Coordinates outside the input take the nearest edge element (REPLICATE border), which is
    what TFLite's clamped indices give. For "nearest", ACL's own rounding applies.
    """

    kind, roles, outputs = "resize", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, interpolation: str = "bilinear", align_corners: bool = False, half_pixel_centers: bool = False):
        if not isinstance(align_corners, bool) or not isinstance(half_pixel_centers, bool):
            raise ArgumentTypeError(f"align_corners and half_pixel_centers must be bool, got "
                                    f"align_corners={align_corners!r}, half_pixel_centers={half_pixel_centers!r}")
        if align_corners and half_pixel_centers:
            raise UnsupportedOptionError("align_corners=True with half_pixel_centers=True: TFLite and ACL take one "
                                         "sampling grid at a time")
        p = functions.default_params()
        p.interpolation = abi.code(abi.INTERPOLATIONS, interpolation, "interpolation")
        p.sampling = abi.SAMPLINGS["center" if half_pixel_centers else "top_left"]
        p.align_corners = int(align_corners)
        return p


CLASSES: Tuple[type, ...] = (Resize,)

__all__ = ['Resize', "CLASSES"]
