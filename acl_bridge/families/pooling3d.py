"""The 3-D pooling family (native/acl_shim_pooling3d.cpp): Pooling3D, ACL's Pooling3dLayer
(NEPooling3dLayer / CLPooling3dLayer) on NDHWC tensors: max or average over a depth x height
x width window. ACL 24.11 has it on NEON and CL; ACL 20.08 has none: its construction is
refused as by ACL's validate() (AclStatusError naming NEPooling3dLayer::validate), which the
model runner's partition takes as ACL's refusal. Data types are ACL's: float32 / float16,
int8 / uint8 with one quantization in and out."""

from __future__ import annotations

from typing import Sequence, Tuple

import numpy as np

from ndarray.errors import InvalidLayoutError, UnsupportedOptionError

from .. import abi, functions
from ..functions import AclFunction
from ..layout import check_int


def _triple(value, field: str, minimum: int) -> Tuple[int, int, int]:
    """(d, h, w) from an int or a sequence of three ints, each >= ``minimum``."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        items: tuple = (value,) * 3
    else:
        try:
            items = tuple(value)
        except TypeError:
            items = ()
    if len(items) != 3:
        raise UnsupportedOptionError(f"Pooling3D: {field} is {value!r}, expected (d, h, w)")
    d, h, w = (check_int(v, field, minimum=minimum) for v in items)
    return d, h, w


def pooled_size(size: int, kernel: int, stride: int, before: int, after: int) -> int:
    """The output extent of one axis: (size + before + after - kernel) // stride + 1 (ACL's
    FLOOR rounding, TFLite's too)."""
    return (size + before + after - kernel) // stride + 1


class Pooling3D(AclFunction):
    """Max / average pooling of an NDHWC src (N, D, H, W, C) into dst (N, D', H', W', C):
    ``kernel`` and ``stride`` (d, h, w) (or one int for all three), ``padding`` ((front,
    back), (top, bottom), (left, right)); ``exclude_padding`` (average only): divide by the
    elements inside src (TFLite's AveragePool3D), else by the whole window. Give
    ``data_layout="NHWC"`` (the channel last). Refused before ACL sees it: src not rank 5, a
    dst shape the options do not give, a padding not smaller than the kernel along its axis."""

    kind, roles, outputs = "pooling_3d", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, pool_type: str = "max", kernel=(2, 2, 2), stride=(1, 1, 1),
                padding=((0, 0), (0, 0), (0, 0)), exclude_padding: bool = True):
        kd, kh, kw = _triple(kernel, "kernel", 1)
        sd, sh, sw = _triple(stride, "stride", 1)
        try:
            pads = tuple(tuple(pw) for pw in padding)
        except TypeError:
            pads = ()
        if len(pads) != 3 or any(len(pw) != 2 for pw in pads):
            raise UnsupportedOptionError(f"Pooling3D: padding is {padding!r}, expected ((front, back), (top, bottom), "
                                         f"(left, right))")
        (front, back), (top, bottom), (left, right) = ((check_int(a, "padding", minimum=0),
                                                        check_int(b, "padding", minimum=0)) for a, b in pads)
        for k, (a, b) in zip((kd, kh, kw), ((front, back), (top, bottom), (left, right))):
            if a >= k or b >= k:
                raise UnsupportedOptionError(f"Pooling3D: padding {(a, b)} along an axis of kernel {k}, expected "
                                             f"each side < {k} (a window of padding alone)")
        if pool_type not in ("max", "avg"):
            raise UnsupportedOptionError(f"Pooling3D: pool_type is {pool_type!r}, expected 'max' or 'avg'")
        p = functions.default_params()
        p.pool_type = abi.code(abi.POOL_TYPES, pool_type, "pool_type")
        p.kernel_d, p.kernel_h, p.kernel_w = kd, kh, kw
        p.stride_z, p.stride_y, p.stride_x = sd, sh, sw
        p.pad_front, p.pad_back, p.pad_top, p.pad_bottom, p.pad_left, p.pad_right = front, back, top, bottom, left, right
        p.exclude_padding = int(bool(exclude_padding))
        return p

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        arrays, kind, params, quant = super()._call(args, options, quantization)
        src = functions._spec_of(arrays[0], "src")[0]
        dst = functions._spec_of(arrays[1], "dst")[0]
        if len(src) != 5:
            raise InvalidLayoutError(f"Pooling3D: src has shape {tuple(src)}, expected rank 5 (N, D, H, W, C)")
        n, d, h, w, c = src
        want = (n,
                pooled_size(d, params.kernel_d, params.stride_z, params.pad_front, params.pad_back),
                pooled_size(h, params.kernel_h, params.stride_y, params.pad_top, params.pad_bottom),
                pooled_size(w, params.kernel_w, params.stride_x, params.pad_left, params.pad_right), c)
        if min(want) < 1 or tuple(dst) != want:
            raise InvalidLayoutError(f"Pooling3D: dst has shape {tuple(dst)}, src {tuple(src)} pooled with these "
                                     f"options gives {want}")
        return arrays, kind, params, quant


CLASSES: Tuple[type, ...] = (Pooling3D,)

__all__ = ["Pooling3D", "pooled_size", "CLASSES"]
