"""The 2-D pooling room (native/acl_shim_pooling.cpp): Pooling (ACL's PoolingLayer: max,
average, L2 over height and width)."""

from __future__ import annotations

from typing import Tuple

from .. import abi, functions
from ..functions import AclFunction
from ..layout import window_kernel


class Pooling(AclFunction):
    """Max / average / L2 pooling over H and W (NCHW or NHWC numpy shapes). ``padding``: an
    int, (pad_h, pad_w), ((top, bottom), (left, right)) or a PaddingSize."""

    kind, roles, outputs = "pooling", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, pool_type: str = "max", kernel=(2, 2), stride=(1, 1), padding=0,
                exclude_padding: bool = True):
        p = functions.default_params()
        p.pool_type = abi.code(abi.POOL_TYPES, pool_type, "pool_type")
        p.kernel_h, p.kernel_w = window_kernel(kernel)
        functions._window_params(p, stride, padding)
        p.exclude_padding = int(bool(exclude_padding))
        return p


CLASSES: Tuple[type, ...] = (Pooling,)

__all__ = ['Pooling', "CLASSES"]
