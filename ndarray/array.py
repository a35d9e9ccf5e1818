"""NdArray: an allocation plus a ShapeDescriptor.

The allocation is a 1-D ``uint8`` numpy array covering every byte the descriptor may touch,
padding included; ``allocation.ctypes.data`` is the address a native library imports.
:meth:`NdArray.numpy` is a zero-copy view of the logical elements only.

Every view (slicing, transpose, reshape, broadcast) is computed by numpy on the logical
view and turned back into a descriptor over the *same* allocation, so numpy is the single
authority on view arithmetic and this module never re-derives it.
"""

from __future__ import annotations

from typing import Any, Iterable, Optional, Sequence, Tuple

import numpy as np

from .descriptor import ShapeDescriptor
from .errors import ArgumentTypeError, ExportRefusedError, InvalidLayoutError, NotRepresentableError, ReadOnlyError
from .memory import DEFAULT_ALIGNMENT_IN_BYTES, address, aligned_bytes, dense_owner, element_mask
from .numpy_protocol import NumpyProtocol
from .strides import CHANNELS_LAST_INNER_TO_OUTER, as_int, check_rank_for, normalize_memory_format



class NdArray(NumpyProtocol):
    """Memory (``allocation``) described by a :class:`ShapeDescriptor` (``descriptor``).

    Two ways to call the class, as with ``np.ndarray``:

    * ``NdArray(shape, dtype="float32", order="c", *, paddings=None, padding_offsets=None)``:
      a fresh, zero-filled, 64-byte aligned padded buffer (the same as
      ``NdArray.allocate(ShapeDescriptor(shape, dtype, order, paddings=...))``);
    * ``NdArray(allocation, descriptor, *, readonly=False, owns_padding=False)``: wrap an
      existing 1-D ``uint8`` allocation, described by ``descriptor``, without copying. The
      library cannot know who else uses those bytes, so :attr:`padding_is_free` is False,
      unless the caller declares ``owns_padding=True``: "every byte of this allocation that
      is not an element of ``descriptor`` is mine to lose" (a scratch arena, a test harness).

    NdArray speaks numpy (module ``ndarray.numpy_protocol``): ``np.asarray(a)`` is a view of
    the elements, ``a + 1`` and ``np.sum(a)`` return numpy arrays, ``np.add(a, b, out=c)``
    writes into ``c``'s elements (never its padding), ``a == b`` is elementwise. Like
    ``np.ndarray`` it is unhashable (``__hash__`` is None): ``==`` is elementwise, so a hash
    by identity would let ``{a: 1}[b]`` silently call ``bool(a == b)``.
    """

    # numpy < 1.25's NDArrayOperatorsMixin has no __slots__, so instances already have
    # __weakref__ (and a __dict__) there; naming it again would be a TypeError.
    __slots__ = ("_allocation", "_descriptor", "_readonly", "_root") + (
        () if hasattr(NumpyProtocol, "__weakref__") else ("__weakref__",))

    def __init__(
        self,
        allocation_or_shape: Any,
        descriptor_or_dtype: Any = None,
        order: Optional[str] = None,
        *,
        readonly: bool = False,
        owns_padding: bool = False,
        dtype: Any = None,
        paddings: Optional[Iterable[int]] = None,
        padding_offsets: Optional[Iterable[int]] = None,
    ) -> None:
        if isinstance(descriptor_or_dtype, ShapeDescriptor):
            if dtype is not None or order is not None or paddings is not None or padding_offsets is not None:
                raise ArgumentTypeError(
                    "NdArray(allocation, descriptor) takes only readonly= and owns_padding=; dtype, order, paddings and "
                    f"padding_offsets come from the descriptor: {descriptor_or_dtype!r}"
                )
            self._wrap(allocation_or_shape, descriptor_or_dtype, readonly)
            # memory brought in: its owner is unknown, unless the caller vouches for it
            self._root: Optional[ShapeDescriptor] = descriptor_or_dtype if owns_padding is True else None
            return
        if isinstance(allocation_or_shape, (np.ndarray, ShapeDescriptor, bytes, bytearray, memoryview)):
            raise ArgumentTypeError(
                f"NdArray({type(allocation_or_shape).__name__}, {type(descriptor_or_dtype).__name__}) is neither "
                "NdArray(shape, dtype=...) nor NdArray(allocation, descriptor): the second argument must be a "
                "ShapeDescriptor to wrap an allocation; use NdArray.from_numpy(array) to wrap a numpy array, "
                "NdArray.allocate(descriptor) for a new buffer of a descriptor"
            )
        if descriptor_or_dtype is not None and dtype is not None:
            raise ArgumentTypeError(f"dtype given twice: {descriptor_or_dtype!r} and dtype={dtype!r}")
        chosen = next((t for t in (dtype, descriptor_or_dtype) if t is not None), "float32")
        d = ShapeDescriptor(allocation_or_shape, chosen, "c" if order is None else order,
                            paddings=paddings, padding_offsets=padding_offsets)
        self._wrap(aligned_bytes(d.alloc_size_in_bytes, DEFAULT_ALIGNMENT_IN_BYTES, zero=True), d, False)
        self._root = d

    def _wrap(self, allocation: Any, descriptor: ShapeDescriptor, readonly: bool) -> None:
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

    @classmethod
    def _made(cls, allocation: np.ndarray, descriptor: ShapeDescriptor, readonly: bool,
              root: Optional[ShapeDescriptor]) -> "NdArray":
        """An NdArray over ``allocation`` whose provenance (``root``) the library knows."""
        self = cls(allocation, descriptor, readonly=readonly)
        self._root = root
        return self

    # ------------------------------------------------------------------ constructors
    @classmethod
    def empty(
        cls,
        shape: Iterable[int],
        dtype: Any = "float32",
        order: str = "c",
        *,
        paddings: Optional[Iterable[int]] = None,
        padding_offsets: Optional[Iterable[int]] = None,
        alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES,
    ) -> "NdArray":
        """An uninitialised padded buffer, its first byte aligned to ``alignment_in_bytes``."""
        d = ShapeDescriptor(shape, dtype, order, paddings=paddings, padding_offsets=padding_offsets)
        return cls._made(aligned_bytes(d.alloc_size_in_bytes, alignment_in_bytes), d, False, d)

    @classmethod
    def allocate(cls, descriptor: ShapeDescriptor, *, alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES,
                 slack_in_bytes: int = 0) -> "NdArray":
        """A fresh, zero-filled allocation for ``descriptor`` (padding included), its first
        byte aligned to ``alignment_in_bytes``: THE one way the library allocates a buffer.
        ``slack_in_bytes`` more zeroed bytes follow the allocation and belong to it (room for
        a native library's vector stores past the end)."""
        if not isinstance(descriptor, ShapeDescriptor):
            raise ArgumentTypeError(f"descriptor must be a ShapeDescriptor, got {type(descriptor).__name__}")
        slack = as_int(slack_in_bytes, "slack_in_bytes")
        if slack < 0:
            raise InvalidLayoutError(f"slack_in_bytes is {slack}, expected >= 0")
        raw = aligned_bytes(descriptor.alloc_size_in_bytes + slack, alignment_in_bytes, zero=True)
        return cls._made(raw, descriptor, False, descriptor)

    @classmethod
    def full(cls, shape: Iterable[int], fill_value: Any, dtype: Any = "float32", order: str = "c", *,
             paddings: Optional[Iterable[int]] = None, padding_offsets: Optional[Iterable[int]] = None,
             padding_value: Any = 0, alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES) -> "NdArray":
        """Elements set to ``fill_value``, padding cells to ``padding_value``."""
        a = cls.empty(shape, dtype, order, paddings=paddings, padding_offsets=padding_offsets,
                      alignment_in_bytes=alignment_in_bytes)
        a.buffer()[...] = padding_value
        a.numpy()[...] = fill_value
        return a

    @classmethod
    def zeros(cls, shape: Iterable[int], dtype: Any = "float32", order: str = "c", **kwargs: Any) -> "NdArray":
        return cls.full(shape, 0, dtype, order, **kwargs)

    @classmethod
    def from_numpy(cls, arr: np.ndarray, *, order: Optional[str] = None) -> "NdArray":
        """Wrap ``arr``'s memory without copying.

        The allocation spans from the lowest to the highest byte any element occupies, so
        negative strides become a positive ``offset``; stride 0 broadcasts are kept, and make
        the NdArray read-only, exactly as numpy does. ``order`` is a preference for arrays
        that are padded buffers in both orders (see ShapeDescriptor.create).

        A view of a bigger dense array (``x[2:10, 2:10]``) is recognised as a padded buffer
        over the whole of ``x``; the "padding" is then ``x``'s other elements, so
        :attr:`padding_is_free` is False for every NdArray made here.
        """
        if not isinstance(arr, np.ndarray):
            raise ArgumentTypeError(f"from_numpy expects a numpy.ndarray, got {type(arr).__name__}")
        itemsize = arr.dtype.itemsize
        for i, s in enumerate(arr.strides):
            if itemsize and s % itemsize:
                raise NotRepresentableError(
                    f"strides[{i}] is {s} bytes, not a multiple of the itemsize {itemsize}: "
                    f"element strides cannot express it; shape={arr.shape}, strides={arr.strides}"
                )
        if order is None:
            order = "f" if arr.flags.f_contiguous and not arr.flags.c_contiguous else "c"
        strides = tuple(s // itemsize for s in arr.strides) if itemsize else (0,) * arr.ndim
        if arr.size == 0:  # no byte to wrap; shape and strides are kept as given
            d = ShapeDescriptor(arr.shape, arr.dtype, order, strides=strides, alloc_size=0)
            return cls(np.empty(0, np.uint8), d, readonly=not arr.flags.writeable)
        owner = dense_owner(arr)
        if owner is not None:
            # A view of a dense numpy buffer: the whole buffer is the allocation, so a
            # padded buffer sliced out of a bigger array is recognised as one.
            start = address(owner)
            offset = (address(arr) - start) // itemsize
            d = ShapeDescriptor(arr.shape, arr.dtype, order, strides=strides, offset=offset,
                                alloc_size=owner.nbytes // itemsize)
            first = owner.reshape(-1)[:1]
        else:
            # Only the bytes the elements occupy: from the lowest element (last index along
            # negative strides, else first) to the highest.
            lowest = tuple(slice(n - 1, n) if s < 0 else slice(0, 1) for n, s in zip(arr.shape, arr.strides))
            first = arr[lowest].reshape(1) if arr.ndim else arr.reshape(1)
            offset = (address(arr) - address(first)) // itemsize
            d = ShapeDescriptor(arr.shape, arr.dtype, order, strides=strides, offset=offset)
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
    def shape(self) -> Tuple[int, ...]:
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
        return int(self._allocation.ctypes.data)

    @property
    def data_ptr(self) -> int:
        """Address of element 0."""
        return self.base_ptr + self._descriptor.offset_in_bytes

    def numpy(self) -> np.ndarray:
        """Zero-copy view of the logical elements (padding excluded)."""
        d = self._descriptor
        if d.size == 0:  # no byte to view: an empty array with the descriptor's strides
            view = np.ndarray(d.shape, d.dtype, buffer=np.empty(0, np.uint8), strides=d.strides_in_bytes)
            return view if not self._readonly else _read_only(view)
        view = np.ndarray(d.shape, d.dtype, buffer=self._allocation, offset=d.offset_in_bytes, strides=d.strides_in_bytes)
        return _read_only(view) if self._readonly else view

    def buffer(self) -> np.ndarray:
        """The whole allocation as a 1-D array of ``dtype`` (padding included)."""
        d = self._descriptor
        view = self._allocation.view(d.dtype) if d.alloc_size else np.empty(0, d.dtype)
        return _read_only(view) if self._readonly else view

    # ------------------------------------------------------------------ padding
    def padding_mask(self) -> np.ndarray:
        """Boolean array over :meth:`buffer`: True for cells that hold no element of THIS
        array. Whether another array may own those cells is :meth:`free_padding_mask`."""
        return ~element_mask(self._descriptor)

    def free_padding_mask(self) -> np.ndarray:
        """Boolean array over :meth:`buffer`: True for cells that belong to no element of any
        array sharing the allocation, the only cells a library may write as scratch.

        Known only for memory this library allocated (``NdArray(shape)``, ``allocate``,
        ``empty``, ``full``, ``zeros``, ``contiguous``) and views of it: there, the cells
        outside the elements of the array that made the allocation. Everywhere else (memory
        from ``from_numpy``, DLPack or ``NdArray(allocation, descriptor)``) no cell is known to
        be free: all False.
        """
        if self._root is None:
            return np.zeros(self._descriptor.alloc_size, dtype=bool)
        return ~element_mask(self._root)

    @property
    def padding_is_free(self) -> bool:
        """True when the padding of this array may be written without touching anyone's data.

        The rule: the layout is a padded buffer (``descriptor.explicit is None``, so the gaps
        its strides leave are exactly :meth:`padding_mask`), elements never overlap, and every
        padding cell is free (:meth:`free_padding_mask`): the allocation was made by this
        library and this array still holds every element of the array that made it. So:

        * ``NdArray.zeros((4, 6), paddings=(2, 2))`` and its transposes/reshapes: True;
        * ``a[1:3]`` of it: False (the other rows are elements of ``a``);
        * ``NdArray.from_numpy(x[2:10, 2:10])``, ``from_numpy(x.transpose(1, 0, 2))`` or any
          memory brought in: False, even when it has no padding cell at all;
        * explicit layouts (step slices, general transposes, broadcasts): False, because a
          consumer reading padding off the strides would find elements there.
        """
        d = self._descriptor
        if self._root is None or d.explicit is not None or d.overlaps:
            return False
        if d == self._root:
            return True
        # Views are taken from this array's elements, so they are a subset of the root's;
        # without overlap they are all of them exactly when the counts agree.
        return d.size == self._root.size

    def fill_padding(self, value: Any) -> None:
        """Write ``value`` into every padding cell; elements are not touched."""
        self._check_writeable("fill_padding")
        self.buffer()[self.padding_mask()] = value

    def _check_writeable(self, what: str) -> None:
        if self._readonly:
            raise ReadOnlyError(f"{what} needs a writeable NdArray, this one is read-only: {self._descriptor!r}")

    # ------------------------------------------------------------------ views
    def _view(self, view: np.ndarray, what: str) -> "NdArray":
        """NdArray over the same allocation for a numpy view of this array's elements."""
        itemsize = self._descriptor.itemsize
        start = self.base_ptr
        if view.size and not start <= address(view) < start + self._allocation.nbytes:
            raise NotRepresentableError(f"{what} needs a copy: the result does not lie in this allocation: {self._descriptor!r}")
        offset = (address(view) - start) // itemsize if view.size else 0
        strides = tuple(s // itemsize for s in view.strides)
        d = ShapeDescriptor(view.shape, view.dtype, self._descriptor.order, strides=strides, offset=offset,
                            alloc_size=self._descriptor.alloc_size if view.size else 0)
        return NdArray._made(self._allocation, d, self._readonly or not view.flags.writeable, self._root)

    def __getitem__(self, key: Any) -> Any:
        """Basic indexing (ints, slices with any step, Ellipsis, None): always an NdArray view
        (a 0-d one when every index is an integer). Advanced indexing (integer or boolean
        arrays) copies in numpy, and returns that numpy copy, as numpy does."""
        src = self.numpy()
        view = src[_unwrap_key(key)]
        if not isinstance(view, np.ndarray):  # every index an integer: keep a 0-d view
            view = src[(key if isinstance(key, tuple) else (key,)) + (Ellipsis,)]
        if view.size and not np.shares_memory(view, src):
            return view  # advanced indexing: numpy's copy
        return self._view(view, f"indexing with {key!r}")

    def __setitem__(self, key: Any, value: Any) -> None:
        """``a[key] = value`` writes the selected elements (never padding), as numpy."""
        self._check_writeable("assignment")
        self.numpy()[_unwrap_key(key)] = np.asarray(value) if isinstance(value, NdArray) else value

    def transpose(self, *axes: Any) -> "NdArray":
        axes = tuple(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return self._view(self.numpy().transpose(*axes) if axes else self.numpy().T, f"transpose{axes}")

    permute = transpose

    @property
    def T(self) -> "NdArray":
        """The transpose (all axes reversed), a view, as ``np.ndarray.T``."""
        return self.transpose()

    def reshape(self, *shape: Any) -> "NdArray":
        """A view with a new shape, or NotRepresentableError where numpy would need a copy."""
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        src = self.numpy()
        try:
            view = src.reshape(shape)
        except (ValueError, TypeError) as e:
            raise InvalidLayoutError(f"cannot reshape {self.shape} to {shape}: {e}: {self._descriptor!r}") from None
        if view.size and not np.shares_memory(view, src):
            raise NotRepresentableError(
                f"reshape from {self.shape} to {tuple(shape)} needs a copy for strides "
                f"{self._descriptor.strides}; call contiguous() first: {self._descriptor!r}"
            )
        return self._view(view, f"reshape{tuple(shape)}")

    def broadcast_to(self, shape: Sequence[int]) -> "NdArray":
        """Read-only view with stride 0 along broadcast dimensions."""
        try:
            view = np.broadcast_to(self.numpy(), tuple(shape))
        except ValueError as e:
            raise InvalidLayoutError(f"cannot broadcast {self.shape} to {tuple(shape)}: {e}: {self._descriptor!r}") from None
        return self._view(view, f"broadcast_to{tuple(shape)}")

    def contiguous(self, order: str = "c", *, paddings: Optional[Iterable[int]] = None,
                   padding_offsets: Optional[Iterable[int]] = None,
                   alignment_in_bytes: int = DEFAULT_ALIGNMENT_IN_BYTES) -> "NdArray":
        """An explicit copy into a new buffer laid out in ``order`` ('c' or 'f'), or in a
        PyTorch memory format ("contiguous", "channels_last", "channels_last_3d")."""
        if isinstance(order, str) and order in ("c", "f", "C", "F"):
            out = NdArray.empty(self.shape, self.dtype, order.lower(), paddings=paddings,
                                padding_offsets=padding_offsets, alignment_in_bytes=alignment_in_bytes)
        else:
            fmt = normalize_memory_format(order)
            if fmt == "contiguous":
                return self.contiguous("c", paddings=paddings, padding_offsets=padding_offsets,
                                       alignment_in_bytes=alignment_in_bytes)
            check_rank_for(self.shape, fmt)
            perm = tuple(reversed(CHANNELS_LAST_INNER_TO_OUTER[fmt]))  # memory order, outermost first
            memory = NdArray.empty(tuple(self.shape[i] for i in perm), self.dtype,
                                   alignment_in_bytes=alignment_in_bytes)
            out = memory.transpose(tuple(int(i) for i in np.argsort(perm)))
        out.numpy()[...] = self.numpy()
        return out

    def copy(self) -> "NdArray":
        """A dense C-order copy in a new allocation, as ``np.ndarray.copy()``."""
        return self.contiguous("c")

    def astype(self, dtype: Any) -> "NdArray":
        """A dense C-order copy converted to ``dtype`` (numpy's casting rules), a new allocation."""
        out = NdArray(self.shape, dtype)
        out.numpy()[...] = self.numpy()
        return out

    # ------------------------------------------------------------------ DLPack
    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        """Export the logical elements (strides in elements, as DLPack wants); padding stays
        invisible to the consumer, which only sees larger strides.

        Negative strides are refused with ExportRefusedError, a BufferError (numpy's convention for a layout it
        will not export): DLPack allows them, but PyTorch's importer takes the whole process
        down on them. Use ``contiguous()`` first, or ``np.from_dlpack(a.numpy())`` when the
        consumer is numpy.
        """
        d = self._descriptor
        for i, (n, s) in enumerate(zip(d.shape, d.strides)):
            if s < 0 and n > 1:
                raise ExportRefusedError(
                    f"strides[{i}] is {s}, a negative stride: DLPack consumers such as PyTorch cannot "
                    f"import it (expected strides >= 0; call contiguous() for a copy): {d!r}"
                )
        try:
            return self.numpy().__dlpack__(*args, **kwargs)
        except BufferError as err:  # numpy's refusals (ml_dtypes dtypes, read-only for old consumers...)
            raise ExportRefusedError(f"numpy cannot export this NdArray through DLPack: {err}: {d!r}") from None

    def __dlpack_device__(self) -> Tuple[int, int]:
        device = self.numpy().__dlpack_device__()
        return int(device[0]), int(device[1])

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        notes = ", readonly" if self._readonly else ""
        if self._descriptor.has_padded_buffer and not self.padding_is_free:
            # Not "padding" to anyone who may write it: other elements may live there.
            notes += ", cells outside the elements are not free (they may hold other arrays' elements)"
        return f"NdArray({self._descriptor!r}{notes})"


def _read_only(view: np.ndarray) -> np.ndarray:
    view.flags.writeable = False
    return view


def _unwrap_key(key: Any) -> Any:
    """An index with NdArrays (boolean masks, index arrays) replaced by their numpy views."""
    if isinstance(key, NdArray):
        return key.numpy()
    if isinstance(key, tuple):
        return tuple(k.numpy() if isinstance(k, NdArray) else k for k in key)
    return key
