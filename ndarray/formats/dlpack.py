"""DLPack exchange: ``NdArray.__dlpack__`` / ``__dlpack_device__`` and :func:`from_dlpack`.

DLPack describes a tensor by a data pointer, a ``byte_offset`` to element 0, a shape and
strides "in number of elements, not bytes" (dlpack.h). It has no notion of an allocation
size or of padding: a padded buffer crosses as larger strides. What comes back wraps only
the bytes DLPack vouches for (from the lowest to the highest element), so its descriptor is
an explicit strided layout whose allocation ends at the last element; reading past it to
restore the outermost padding would touch memory the producer never offered.

numpy is the capsule consumer here (``np.from_dlpack``, numpy >= 1.22): it honours
``byte_offset`` and strides, and it keeps the producer's memory alive; this module then
wraps that memory without a copy.
"""

from __future__ import annotations

import numpy as np

from ..array import NdArray
from ..errors import NotRepresentableError

KDL_CPU = 1


def from_dlpack(obj) -> NdArray:
    """Wrap any DLPack producer on the CPU (numpy arrays, NdArrays, torch tensors...)."""
    device = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else (KDL_CPU, 0)
    if int(device[0]) != KDL_CPU:
        raise NotRepresentableError(
            f"__dlpack_device__ is {tuple(device)}, expected a CPU device ({KDL_CPU}, 0): {type(obj).__name__}"
        )
    return NdArray.from_numpy(np.from_dlpack(obj))
