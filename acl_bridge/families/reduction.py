"""The reduction family: ACL's reduction operation along one axis (NEReductionOperation /
CLReductionOperation) of (src, dst), the axis kept with extent 1 in dst: ReduceSum, ReduceMean,
ReduceMax, ReduceMin, ReduceProd. One native builder serves them all
(native/acl_shim_reduction.cpp): a kind is one class here and one row there.

``axis`` is a numpy axis of src (negative counts from the end); src has at most 4 dimensions
(ACL reduces along its dimensions 0 to 3). Data types are ACL's: float32 / float16, int32, and
uint8 / int8 (quantized) where ACL's validate() takes them; ACL 20.08 and 24.11 alike."""

from __future__ import annotations

from typing import Sequence, Tuple

from ndarray.errors import UnsupportedOptionError

from .. import functions
from ..functions import AclFunction
from ..layout import check_int

MAX_RANK = 4  # ACL reduces along its dimensions 0..3


class Reduction(AclFunction):
    """dst = op(src) along numpy ``axis``, kept with extent 1 (``keepdims=True``)."""

    roles, outputs = ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, axis: int):
        p = functions.default_params()
        p.axis = check_int(axis, "axis", minimum=-MAX_RANK)
        return p

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        """The numpy axis of the options as ACL's (dimension ``rank - 1 - axis``), checked
        against src's rank."""
        arrays, kind, params, quant = super()._call(args, options, quantization)
        rank = len(functions._spec_of(arrays[0], "src")[0])
        if rank > MAX_RANK:
            raise UnsupportedOptionError(f"{cls.__name__}: src has {rank} dimensions, ACL reduces at most {MAX_RANK}")
        if not -rank <= params.axis < rank:
            raise UnsupportedOptionError(f"{cls.__name__}: axis is {params.axis}, expected -{rank}..{rank - 1} "
                                         f"for a rank-{rank} src")
        params.axis = rank - 1 - params.axis % rank
        return arrays, kind, params, quant


class ReduceSum(Reduction):
    """dst = src.sum(axis, keepdims=True)."""

    kind = "reduce_sum"


class ReduceMean(Reduction):
    """dst = src.mean(axis, keepdims=True)."""

    kind = "reduce_mean"


class ReduceMax(Reduction):
    """dst = src.max(axis, keepdims=True)."""

    kind = "reduce_max"


class ReduceMin(Reduction):
    """dst = src.min(axis, keepdims=True)."""

    kind = "reduce_min"


class ReduceProd(Reduction):
    """dst = src.prod(axis, keepdims=True)."""

    kind = "reduce_prod"


CLASSES: Tuple[type, ...] = (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd)

__all__ = ["Reduction", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "CLASSES", "MAX_RANK"]
