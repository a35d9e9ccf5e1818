"""The gather_nd family (native/acl_shim_gather_nd.cpp): GatherNd, TFLite's GATHER_ND with
indices known only at run. ACL has no GatherNd function; the shim composes one: on every run
it reads the index rows on the CPU, flattens each into a row of src (params viewed as (K, C))
and checks it, as TFLite's kernel does, then ACL's gather (NEGather / CLGather) moves the
rows. An index row outside src stops the run with
:class:`~acl_bridge.errors.AclIndexOutOfRangeError` (an IndexOutOfRangeError) before anything
is written. NEON on ACL 20.08 and 24.11; CL (24.11): the shim maps the indices and its own
int32 tensor for the CPU's part. Any data type ACL's gather moves (float32, int8 / uint8 as
stored with one quantization in and out); indices int32 or int64."""

from __future__ import annotations

import math
from typing import Sequence, Tuple

import numpy as np

from ndarray.errors import ArgumentTypeError, InvalidLayoutError, UnsupportedOptionError

from .. import functions
from ..functions import AclFunction
from ..layout import check_int

MAX_INDEX_DEPTH = 6  # components of an index row (acl_shim_params.gather_nd_strides)


def slice_strides(dims: Sequence[int]) -> Tuple[int, ...]:
    """Rows of the (K, C) view between steps of each index component: prod(dims[j + 1:])."""
    return tuple(math.prod(dims[j + 1:]) for j in range(len(dims)))


class GatherNd(AclFunction):
    """dst[n] = src[sum_j indices[n, j] * prod(dims[j + 1:])]: src (K, C) is params with its
    first D axes ``dims`` (K = their product) flattened, indices (N, D) int32 or int64 read at
    every run, dst (N, C). Refused when made: ranks other than 2, D not len(dims) or above 6,
    prod(dims) not K, dst not (N, C)."""

    kind, roles, outputs = "gather_nd", ("src", "indices", "dst"), ("dst",)
    const_roles = ("indices",)  # read by the shim, never written

    @classmethod
    def _params(cls, dims: Sequence[int] = (1,)):
        try:
            given = tuple(dims)
        except TypeError:
            raise ArgumentTypeError(f"{cls.__name__}: dims is {dims!r}, expected params' first D axes") from None
        if not 1 <= len(given) <= MAX_INDEX_DEPTH:
            raise UnsupportedOptionError(f"{cls.__name__}: dims has {len(given)} axes, expected 1..{MAX_INDEX_DEPTH}")
        p = functions.default_params()
        for j, s in enumerate(slice_strides(tuple(check_int(d, f"dims[{j}]", minimum=1) for j, d in enumerate(given)))):
            p.gather_nd_strides[j] = s  # the rest stay 0
        return p

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        dims = options.get("dims", args[len(cls.roles)] if len(args) > len(cls.roles) else (1,))
        arrays, kind, params, quant = super()._call(args, options, quantization)
        (src, _), (idx, idx_dtype), (dst, _) = (functions._spec_of(a, r) for a, r in zip(arrays, cls.roles))
        d = sum(1 for j in range(MAX_INDEX_DEPTH) if params.gather_nd_strides[j])  # the index depth D
        if idx_dtype not in (np.int32, np.int64) or len(idx) != 2 or idx[1] != d:
            raise ArgumentTypeError(f"{cls.__name__}: indices is {idx_dtype}{list(idx)}, expected an int32 or int64 "
                                    f"(N, {d}) array")
        if len(src) != 2 or len(dst) != 2:
            raise InvalidLayoutError(f"{cls.__name__}: src {tuple(src)} and dst {tuple(dst)}, expected (K, C) and "
                                     f"(N, C)")
        if math.prod(dims) != src[0]:
            raise InvalidLayoutError(f"{cls.__name__}: src has {src[0]} rows, dims {tuple(dims)} give "
                                     f"{math.prod(dims)}")
        if tuple(dst) != (idx[0], src[1]):
            raise InvalidLayoutError(f"{cls.__name__}: dst has shape {tuple(dst)}, src {tuple(src)} gathered by "
                                     f"indices {tuple(idx)} gives {(idx[0], src[1])}")
        return arrays, kind, params, quant


CLASSES: Tuple[type, ...] = (GatherNd,)

__all__ = ["GatherNd", "slice_strides", "CLASSES"]
