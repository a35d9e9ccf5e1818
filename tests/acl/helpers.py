"""Buffers for the ACL tests: NdArrays in every layout the tests need, surrounded by guard
bytes, with a check that ACL touched nothing but the logical elements of its outputs.

Layout variants (numpy order, C-order buffers):
* ``contiguous``: dense;
* ``padded``: right and bottom padding of 1 on the last two dims (the ADR's 2x2x5x5 example);
* ``offset``: padding on all four sides of the x-y plane, so element 0 is not at the start;
* ``strided``: a view taking every other index of the outermost dim of a bigger parent
  (outer stride larger than dense, innermost contiguous: expressible by ACL strides);
* ``flipped``: a negative-stride view (not expressible by ACL: forces the copy fallback);
* ``negotiated``: exactly the padding ACL asked for (``padding=``), allocated up front and
  owned by the bridge (``bridge=True``, as ``padded_empty`` makes it): ACL may write its
  padding and the slack after it, never the guard bytes beyond those.
"""

from __future__ import annotations

import numpy as np

from ndarray import NdArray, ShapeDescriptor

GUARD_BYTES = 64
GUARD_VALUE = 0xA5
VARIANTS = ("contiguous", "padded", "offset", "strided", "negotiated")


class Guarded:
    """An NdArray inside a larger uint8 buffer with guard bytes before and after."""

    def __init__(self, shape, dtype="float32", variant="contiguous", padding=None, bridge=False):
        shape = tuple(shape)
        dtype = np.dtype(dtype)
        rank = len(shape)
        self.variant = variant
        self.bridge = bridge
        if padding is not None:  # exactly the ACL padding asked for (negotiated up front)
            from acl_bridge.executor import _BRIDGE_OWNED, BRIDGE_SLACK_IN_BYTES
            from acl_bridge.mapping import padded_descriptor

            d = padded_descriptor(shape, dtype, padding.for_rank(rank))
            slack = BRIDGE_SLACK_IN_BYTES if bridge else 0
            self.raw = np.full(d.alloc_size_in_bytes + slack + 2 * GUARD_BYTES, GUARD_VALUE, np.uint8)
            self.array = NdArray(self.raw[GUARD_BYTES:GUARD_BYTES + d.alloc_size_in_bytes], d)
            self._owned_end = GUARD_BYTES + d.alloc_size_in_bytes + slack
            if bridge:  # as padded_empty allocates it: the bridge owns padding and slack
                _BRIDGE_OWNED[id(self.array)] = self.array
        elif variant in ("contiguous", "padded", "offset"):
            paddings = [0] * rank
            offsets = [0] * rank
            if variant == "padded":
                paddings[-1] = 1
                if rank >= 2:
                    paddings[-2] = 1
            elif variant == "offset":
                paddings[-1], offsets[-1] = 5, 2
                if rank >= 2:
                    paddings[-2], offsets[-2] = 3, 1
            d = ShapeDescriptor.create(shape, dtype, paddings=paddings, padding_offsets=offsets)
            self.raw = np.full(d.alloc_size_in_bytes + 2 * GUARD_BYTES, GUARD_VALUE, np.uint8)
            self.array = NdArray(self.raw[GUARD_BYTES:GUARD_BYTES + d.alloc_size_in_bytes], d)
        elif variant in ("strided", "flipped"):
            parent_shape = (shape[0] * 2,) + shape[1:] if variant == "strided" else shape
            d = ShapeDescriptor.create(parent_shape, dtype)
            self.raw = np.full(d.alloc_size_in_bytes + 2 * GUARD_BYTES, GUARD_VALUE, np.uint8)
            parent = NdArray(self.raw[GUARD_BYTES:GUARD_BYTES + d.alloc_size_in_bytes], d)
            self.array = parent[::2] if variant == "strided" else parent[..., ::-1]
        else:
            raise ValueError(f"unknown variant {variant!r}")
        # every byte that is not a logical element gets a recognisable pattern
        self._mask = self._element_bytes_mask()
        self.raw[~self._mask] = GUARD_VALUE
        self._snapshot = self.raw.copy()

    def _element_bytes_mask(self) -> np.ndarray:
        """True for bytes of self.raw that belong to a logical element of the array."""
        mask = np.zeros(self.raw.shape, bool)
        view = self.array.numpy()
        start = self.array.base_ptr - self.raw.ctypes.data
        d = self.array.descriptor
        idx = np.lib.stride_tricks.as_strided(
            np.arange(self.raw.size, dtype=np.int64)[start + d.offset_in_bytes:],
            shape=view.shape + (d.itemsize,), strides=tuple(s * 8 for s in d.strides_in_bytes) + (8,))
        mask[idx.reshape(-1)] = True
        return mask

    def set(self, values) -> "Guarded":
        self.array.numpy()[...] = values
        self._snapshot = self.raw.copy()
        return self

    def numpy(self) -> np.ndarray:
        return self.array.numpy()

    def _checked(self) -> np.ndarray:
        """Bytes ACL must not write: every non-element byte, or for a bridge-owned buffer
        only the guards outside its allocation and slack."""
        if not self.bridge:
            return ~self._mask
        checked = np.zeros(self.raw.shape, bool)
        checked[:GUARD_BYTES] = True
        checked[self._owned_end:] = True
        return checked

    def untouched(self) -> bool:
        """Guard bytes and padding / gap cells unchanged since the last set() (for a
        bridge-owned buffer: the guards around its allocation and slack)."""
        checked = self._checked()
        return bool(np.array_equal(self.raw[checked], self._snapshot[checked]))

    def changed_outside(self) -> np.ndarray:
        """Byte indexes (into raw) outside the elements that changed, for messages."""
        return np.nonzero((self.raw != self._snapshot) & self._checked())[0]


def arange_values(shape, dtype="float32", scale=0.25, shift=None, modulo=None):
    """np.arange-style values: each element its linear index (optionally wrapped and
    centred so activations see negatives)."""
    n = int(np.prod(shape))
    v = np.arange(n, dtype=np.float64)
    if modulo is not None:
        v = v % modulo
        if shift is None:
            shift = modulo // 2
    if shift:
        v = v - shift
    return (v * scale).reshape(shape).astype(dtype)
