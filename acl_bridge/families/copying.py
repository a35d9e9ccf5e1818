"""The copying room (native/acl_shim_copying.cpp): dst written from src's elements as they are
(Copy: ACL's Copy), permuted (Permute), padded (Pad: constant, reflect, symmetric), or filled
with one value (Fill)."""

from __future__ import annotations

from typing import Sequence, Tuple

from .. import abi, functions
from ..functions import AclFunction
from ..layout import pad_width_to_acl, permutation_to_acl


class Permute(AclFunction):
    """dst = np.transpose(src, axes) (numpy axes), e.g. NCHW->NHWC is axes (0, 2, 3, 1)."""

    kind, roles, outputs = "permute", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, axes: Sequence[int]):
        perm = permutation_to_acl(axes)
        p = functions.default_params()
        p.perm_len = len(perm)
        for i, v in enumerate(perm):
            p.perm[i] = v
        return p


class Copy(AclFunction):
    """dst[...] = src."""

    kind, roles, outputs = "copy", ("src", "dst"), ("dst",)
    in_place = True  # element-wise: an output identical to an input is safe


class Pad(AclFunction):
    """dst = np.pad(src, pad_width, mode) with pad_width ((before, after), ...) in numpy order."""

    kind, roles, outputs = "pad", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, pad_width, constant_value: float = 0.0, mode: str = "constant"):
        pairs = pad_width_to_acl(pad_width)
        p = functions.default_params()
        p.pad_len = len(pairs)
        for i, (before, after) in enumerate(pairs):
            p.pad_before[i], p.pad_after[i] = before, after
        p.pad_mode = abi.code(abi.PAD_MODES, mode, "mode")
        p.constant_value = constant_value
        return p


class Fill(AclFunction):
    """dst[...] = value (for quantized tensors: the stored integer)."""

    kind, roles, outputs = "fill", ("dst",), ("dst",)

    @classmethod
    def _params(cls, value: float):
        p = functions.default_params()
        p.constant_value = value
        return p


CLASSES: Tuple[type, ...] = (Permute, Copy, Pad, Fill)

__all__ = ['Permute', 'Copy', 'Pad', 'Fill', "CLASSES"]
