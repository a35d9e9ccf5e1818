"""NdArray: an allocation plus a ShapeDescriptor.

The allocation is a 1-D ``uint8`` numpy array covering every byte the descriptor may touch,
padding included; ``allocation.ctypes.data`` is the address a native library imports.
:meth:`NdArray.numpy` is a zero-copy view of the logical elements only.

Every view (slicing, transpose, reshape, broadcast) is computed by numpy on the logical
view and turned back into a descriptor over the *same* allocation, so numpy is the single
authority on view arithmetic and this module never re-derives it.
"""

from __future__ import annotations

from typing import Iterable, Optional, Sequence

import numpy as np

from .descriptor import ShapeDescriptor
from .errors import InvalidLayoutError, NotRepresentableError

DEFAULT_ALIGNMENT_IN_BYTES = 64


def _aligned_bytes(size_in_bytes: int, alignment_in_bytes: int) -> np.ndarray:
    """A fresh uint8 array of ``size_in_bytes`` whose first byte is aligned."""
    if alignment_in_bytes <= 0 or alignment_in_bytes & (alignment_in_bytes - 1):
        raise InvalidLayoutError(f"alignment_in_bytes is {alignment_in_bytes}, expected a power of two")
    raw = np.empty(size_in_bytes + alignment_in_bytes, dtype=np.uint8)
    start = (-raw.ctypes.data) % alignment_in_bytes
    return raw[start : start + size_in_bytes]


def _address(arr: np.ndarray) -> int:
    return arr.__array_interface__["data"][0]


def _dense_owner(arr: np.ndarray) -> Optional[np.ndarray]:
    """The dense numpy array whose buffer ``arr`` views, when its size suits ``arr``'s dtype."""
    owner = arr
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    if owner is arr or not (owner.flags.c_contiguous or owner.flags.f_contiguous):
        return None
    itemsize, start = arr.dtype.itemsize, _address(owner)
    if owner.nbytes % itemsize or (_address(arr) - start) % itemsize:
        return None
    low, high = _byte_reach(arr)
    if not (start <= _address(arr) + low and _address(arr) + high <= start + owner.nbytes):
        return None
    return owner


def _byte_reach(arr: np.ndarray):
    """(lowest, one past the highest) byte any element of ``arr`` occupies, relative to element 0."""
    low = sum((n - 1) * s for n, s in zip(arr.shape, arr.strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(arr.shape, arr.strides) if s > 0)
    return low, high + arr.dtype.itemsize


class NdArray:
    """Memory (``allocation``) described by a :class:`ShapeDescriptor` (``descriptor``)."""

    __slots__ = ("_allocation", "_descriptor", "_readonly", "__weakref__")

    def __init__(self, allocation: np.ndarray, descriptor: ShapeDescriptor, *, readonly: bool = False):
        if not isinstance(descriptor, ShapeDescriptor):
            raise InvalidLayoutError(f"descriptor must be a ShapeDescriptor, got {type(descriptor).__name__}")
        if not isinstance(allocation, np.ndarray) or allocation.dtype != np.uint8 or allocation.ndim != 1:
            raise InvalidLayoutError(
                f"allocation must be a 1-D uint8 numpy array, got {getattr(allocation, 'dtype', type(allocation))!r} "
                f"with shape {getattr(allocation, 'shape', None)}: {descriptor!r}"
            )
        if allocation.nbytes and allocation.strides != (1,):
            raise InvalidLayoutError(f"allocation must be contiguous bytes, got strides {allocation.strides}: {descriptor!r}")
        if allocation.nbytes < descriptor.alloc_size_in_bytes:
            raise InvalidLayoutError(
                f"allocation has {allocation.nbytes} bytes but the descriptor needs alloc_size_in_bytes "
                f"{descriptor.alloc_size_in_bytes}: {descriptor!r}"
            )
        self._allocation = allocation[: descriptor.alloc_size_in_bytes]
        self._descriptor = descriptor
        self._readonly = bool(readonly or not allocation.flags.writeable or descriptor.overlaps)

    # ------------------------------------------------------------------ constructors
    @classmethod
    def empty(
        cls,
        shape: Iterable[int],
        dtype="float32",
        order: str = "c",
        *,
        paddings: Optional[Iterable[int]] = None,
        padding_offsets: Optional[Iterable[int]] = None,
        alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES,
    ) -> "NdArray":
        """An uninitialised padded buffer, its first byte aligned to ``alignment_in_bytes``."""
        d = ShapeDescriptor.create(shape, dtype, order, paddings=paddings, padding_offsets=padding_offsets)
        return cls(_aligned_bytes(d.alloc_size_in_bytes, alignment_in_bytes), d)

    @classmethod
    def allocate(cls, descriptor: ShapeDescriptor, *,
                 alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES) -> "NdArray":
        """A fresh, zero-filled allocation for ``descriptor`` (padding included), its first
        byte aligned to ``alignment_in_bytes``: THE one way the library allocates a buffer."""
        if not isinstance(descriptor, ShapeDescriptor):
            raise InvalidLayoutError(f"descriptor must be a ShapeDescriptor, got {type(descriptor).__name__}")
        raw = _aligned_bytes(descriptor.alloc_size_in_bytes, alignment_in_bytes)
        raw[...] = 0
        return cls(raw, descriptor)

    @classmethod
    def full(cls, shape, fill_value, dtype="float32", order="c", *, paddings=None, padding_offsets=None,
             padding_value=0, alignment_in_bytes=DEFAULT_ALIGNMENT_IN_BYTES) -> "NdArray":
        """Elements set to ``fill_value``, padding cells to ``padding_value``."""
        a = cls.empty(shape, dtype, order, paddings=paddings, padding_offsets=padding_offsets,
                      alignment_in_bytes=alignment_in_bytes)
        a.buffer()[...] = padding_value
        a.numpy()[...] = fill_value
        return a

    @classmethod
    def zeros(cls, shape, dtype="float32", order="c", **kwargs) -> "NdArray":
        return cls.full(shape, 0, dtype, order, **kwargs)

    @classmethod
    def from_numpy(cls, arr: np.ndarray, *, order: Optional[str] = None) -> "NdArray":
        """Wrap ``arr``'s memory without copying.

        The allocation spans from the lowest to the highest byte any element occupies, so
        negative strides become a positive ``offset``; stride 0 broadcasts are kept, and make
        the NdArray read-only, exactly as numpy does. ``order`` is a preference for arrays
        that are padded buffers in both orders (see ShapeDescriptor.create).
        """
        if not isinstance(arr, np.ndarray):
            raise InvalidLayoutError(f"from_numpy expects a numpy.ndarray, got {type(arr).__name__}")
        itemsize = arr.dtype.itemsize
        for i, s in enumerate(arr.strides):
            if itemsize and s % itemsize:
                raise NotRepresentableError(
                    f"strides[{i}] is {s} bytes, not a multiple of the itemsize {itemsize}: "
                    f"element strides cannot express it; shape={arr.shape}, strides={arr.strides}"
                )
        if order is None:
            order = "f" if arr.flags.f_contiguous and not arr.flags.c_contiguous else "c"
        if arr.size == 0:
            d = ShapeDescriptor.create(arr.shape, arr.dtype, order, strides=(0,) * arr.ndim, alloc_size=0)
            return cls(np.empty(0, np.uint8), d, readonly=not arr.flags.writeable)
        strides = tuple(s // itemsize for s in arr.strides)
        owner = _dense_owner(arr)
        if owner is not None:
            # A view of a dense numpy buffer: the whole buffer is the allocation, so a
            # padded buffer sliced out of a bigger array is recognised as one.
            start = _address(owner)
            offset = (_address(arr) - start) // itemsize
            d = ShapeDescriptor.create(arr.shape, arr.dtype, order, strides=strides, offset=offset,
                                       alloc_size=owner.nbytes // itemsize)
            first = owner.reshape(-1)[:1]
        else:
            # Only the bytes the elements occupy: from the lowest element (last index along
            # negative strides, else first) to the highest.
            lowest = tuple(slice(n - 1, n) if s < 0 else slice(0, 1) for n, s in zip(arr.shape, arr.strides))
            first = arr[lowest].reshape(1) if arr.ndim else arr.reshape(1)
            offset = (_address(arr) - _address(first)) // itemsize
            d = ShapeDescriptor.create(arr.shape, arr.dtype, order, strides=strides, offset=offset)
        allocation = np.lib.stride_tricks.as_strided(
            first.view(np.uint8).reshape(-1)[:1], shape=(d.alloc_size_in_bytes,), strides=(1,),
            writeable=bool(arr.flags.writeable),
        )
        return cls(allocation, d, readonly=not arr.flags.writeable)

    # ------------------------------------------------------------------ accessors
    @property
    def descriptor(self) -> ShapeDescriptor:
        return self._descriptor

    @property
    def allocation(self) -> np.ndarray:
        """Every byte of the buffer, padding included (1-D uint8)."""
        return self._allocation

    @property
    def shape(self):
        return self._descriptor.shape

    @property
    def dtype(self) -> np.dtype:
        return self._descriptor.dtype

    @property
    def readonly(self) -> bool:
        return self._readonly

    @property
    def base_ptr(self) -> int:
        """Address of the first byte of the allocation (what ACL imports)."""
        return self._allocation.ctypes.data

    @property
    def data_ptr(self) -> int:
        """Address of element 0."""
        return self.base_ptr + self._descriptor.offset_in_bytes

    def numpy(self) -> np.ndarray:
        """Zero-copy view of the logical elements (padding excluded)."""
        d = self._descriptor
        if d.size == 0:
            return np.empty(d.shape, d.dtype)
        view = np.ndarray(d.shape, d.dtype, buffer=self._allocation, offset=d.offset_in_bytes, strides=d.strides_in_bytes)
        if self._readonly:
            view.flags.writeable = False
        return view

    def buffer(self) -> np.ndarray:
        """The whole allocation as a 1-D array of ``dtype`` (padding included)."""
        d = self._descriptor
        view = self._allocation.view(d.dtype) if d.alloc_size else np.empty(0, d.dtype)
        if self._readonly:
            view.flags.writeable = False
        return view

    def padding_mask(self) -> np.ndarray:
        """Boolean array over :meth:`buffer`: True for cells that hold no logical element."""
        d = self._descriptor
        mask = np.ones(d.alloc_size, dtype=bool)
        if d.size:
            index = np.lib.stride_tricks.as_strided(
                np.arange(d.alloc_size, dtype=np.int64)[d.offset:], shape=d.shape,
                strides=tuple(s * 8 for s in d.strides))
            mask[index.reshape(-1)] = False
        return mask

    def fill_padding(self, value) -> None:
        """Write ``value`` into every padding cell; elements are not touched."""
        self._check_writeable("fill_padding")
        self.buffer()[self.padding_mask()] = value

    def _check_writeable(self, what: str) -> None:
        if self._readonly:
            raise InvalidLayoutError(f"{what} needs a writeable NdArray, this one is read-only: {self._descriptor!r}")

    # ------------------------------------------------------------------ views
    def _view(self, view: np.ndarray, what: str) -> "NdArray":
        """NdArray over the same allocation for a numpy view of this array's elements."""
        itemsize = self._descriptor.itemsize
        start = self.base_ptr
        if view.size and not start <= _address(view) < start + self._allocation.nbytes:
            raise NotRepresentableError(f"{what} needs a copy: the result does not lie in this allocation: {self._descriptor!r}")
        offset = (_address(view) - start) // itemsize if view.size else 0
        d = ShapeDescriptor.create(
            view.shape, view.dtype, self._descriptor.order,
            strides=tuple(s // itemsize for s in view.strides), offset=offset,
            alloc_size=self._descriptor.alloc_size,
        )
        return NdArray(self._allocation, d, readonly=self._readonly or not view.flags.writeable)

    def __getitem__(self, key) -> "NdArray":
        """Basic indexing (ints, slices with any step, Ellipsis, None): always a view."""
        view = self.numpy()[key]
        if not isinstance(view, np.ndarray):  # every index an integer: keep a 0-d view
            view = self.numpy()[(key if isinstance(key, tuple) else (key,)) + (Ellipsis,)]
        return self._view(view, f"indexing with {key!r}")

    def transpose(self, *axes) -> "NdArray":
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return self._view(self.numpy().transpose(*axes) if axes else self.numpy().T, f"transpose{axes}")

    permute = transpose

    def reshape(self, *shape) -> "NdArray":
        """A view with a new shape, or NotRepresentableError where numpy would need a copy."""
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        src = self.numpy()
        try:
            view = src.reshape(shape)
        except ValueError as e:
            raise InvalidLayoutError(f"cannot reshape {self.shape} to {shape}: {e}: {self._descriptor!r}") from None
        if view.size and not np.shares_memory(view, src):
            raise NotRepresentableError(
                f"reshape from {self.shape} to {tuple(shape)} needs a copy for strides "
                f"{self._descriptor.strides}; call contiguous() first: {self._descriptor!r}"
            )
        return self._view(view, f"reshape{tuple(shape)}")

    def broadcast_to(self, shape: Sequence[int]) -> "NdArray":
        """Read-only view with stride 0 along broadcast dimensions."""
        return self._view(np.broadcast_to(self.numpy(), tuple(shape)), f"broadcast_to{tuple(shape)}")

    def contiguous(self, order: str = "c", *, paddings=None, padding_offsets=None,
                   alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES) -> "NdArray":
        """An explicit copy into a new buffer laid out in ``order`` ('c' or 'f'), or in a
        PyTorch memory format ("contiguous", "channels_last", "channels_last_3d")."""
        if order in ("c", "f", "C", "F"):
            out = NdArray.empty(self.shape, self.dtype, order.lower(), paddings=paddings,
                                padding_offsets=padding_offsets, alignment_in_bytes=alignment_in_bytes)
            out.numpy()[...] = self.numpy()
            return out
        from .formats import torch as torch_format

        return torch_format.to_memory_format(self, order)

    # ------------------------------------------------------------------ DLPack
    def __dlpack__(self, *args, **kwargs):
        """Export the logical elements (strides in elements, as DLPack wants); padding stays
        invisible to the consumer, which only sees larger strides."""
        return self.numpy().__dlpack__(*args, **kwargs)

    def __dlpack_device__(self):
        return self.numpy().__dlpack_device__()

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        return f"NdArray({self._descriptor!r}{', readonly' if self._readonly else ''})"

    def __array__(self, dtype=None, copy=None):
        arr = self.numpy()
        return arr if dtype is None else arr.astype(dtype)
