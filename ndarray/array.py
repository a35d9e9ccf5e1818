"""NdArray: an allocation plus a ShapeDescriptor.

The allocation is a 1-D ``uint8`` numpy array covering every byte the descriptor may touch,
padding included; ``allocation.ctypes.data`` is the address a native library imports.
:meth:`NdArray.numpy` is a zero-copy view of the logical elements only.

Every view (slicing, transpose, reshape, broadcast) is computed by numpy on the logical
view and turned back into a descriptor over the *same* allocation, so numpy is the single
authority on view arithmetic and this module never re-derives it.
"""

from __future__ import annotations

import builtins
from typing import Any, Iterable, Literal, Optional, Sequence, Tuple

import numpy as np

from .descriptor import ShapeDescriptor, padded_view
from .display import cells_text
from .errors import (ArgumentTypeError, ExportRefusedError, InvalidLayoutError, NotRepresentableError,
                     PaddingNotFreeError, ReadOnlyError, UnsupportedOptionError)
from .memory import (DEFAULT_ALIGNMENT_IN_BYTES, address, aligned_bytes, dense_owner, element_mask, read_only_bytes,
                     refuse_masked)
from .numpy_protocol import NumpyProtocol
from .strides import (CHANNELS_LAST_INNER_TO_OUTER, Context, as_int, check_rank_for, context_text, keywords_checked,
                      normalize_memory_format)


class _Unset:
    """The default of an argument that was not given (None has a meaning: numpy's dtype None)."""

    def __repr__(self) -> str:
        return "<not given>"


_UNSET: Any = _Unset()


class NdArray(NumpyProtocol):
    """Memory (``allocation``) described by a :class:`ShapeDescriptor` (``descriptor``).

    Two ways to call the class, as with ``np.ndarray``:

    * ``NdArray(shape, dtype="float32", order="c", *, paddings=None, padding_offsets=None,
      readonly=False)``: a fresh, zero-filled, 64-byte aligned padded buffer (the same as
      ``NdArray.allocate(ShapeDescriptor(shape, dtype, order, paddings=...))``). ``dtype``
      defaults to float32 (ACL's type); ``dtype=None`` is numpy's None, float64, as in
      ``ShapeDescriptor(shape, None)`` and ``np.empty(shape, None)``;
    * ``NdArray(allocation, descriptor, *, readonly=False, owns_padding=False)``: wrap an
      existing 1-D ``uint8`` allocation, described by ``descriptor``, without copying. The
      library cannot know who else uses those bytes, so :attr:`padding_is_free` is False,
      unless the caller declares ``owns_padding=True``: "every byte of this allocation that
      is not an element of ``descriptor`` is mine to lose" (a scratch arena, a test harness).

    A keyword one form does not take (``owns_padding=`` with a shape, ``dtype=`` with a
    descriptor, a misspelt one) raises ArgumentTypeError naming it. ``readonly=True`` is kept
    everywhere: the element views are not writeable (and cannot be made so), and every write
    path (``a[k] = v``, ``fill``, ``fill_padding``, ``out=``, ``np.copyto``, ``sort``...)
    raises ReadOnlyError.

    NdArray speaks numpy (module ``ndarray.numpy_protocol``): ``a[1, 2]`` is a numpy scalar,
    ``np.asarray(a)`` is a view of the elements, ``a + 1`` and ``np.sum(a)`` return numpy
    arrays, ``np.add(a, b, out=c)`` writes into ``c``'s elements (never its padding), ``a == b``
    is elementwise, ``print(a)`` prints the elements as numpy does. Like ``np.ndarray`` it is
    unhashable (``__hash__`` is None): ``==`` is elementwise, so a hash by identity would let
    ``{a: 1}[b]`` silently call ``bool(a == b)``.
    """

    # numpy < 1.25's NDArrayOperatorsMixin has no __slots__, so instances already have
    # __weakref__ (and a __dict__) there; naming it again would be a TypeError.
    __slots__ = ("_allocation", "_descriptor", "_readonly", "_root", "_elements", "_base_ptr") + (
        () if hasattr(NumpyProtocol, "__weakref__") else ("__weakref__",))

    @keywords_checked
    def __init__(
        self,
        allocation_or_shape: Any,
        descriptor_or_dtype: Any = _UNSET,
        order: Optional[str] = None,
        *,
        readonly: bool = False,
        owns_padding: Any = _UNSET,
        dtype: Any = _UNSET,
        paddings: Optional[Iterable[int]] = None,
        padding_offsets: Optional[Iterable[int]] = None,
    ) -> None:
        if isinstance(descriptor_or_dtype, ShapeDescriptor):
            if dtype is not _UNSET or order is not None or paddings is not None or padding_offsets is not None:
                given = [name for name, value in (("dtype", dtype), ("order", order), ("paddings", paddings),
                                                  ("padding_offsets", padding_offsets))
                         if value is not (_UNSET if name == "dtype" else None)]
                raise ArgumentTypeError(
                    f"NdArray(allocation, descriptor) takes only readonly= and owns_padding=, got {', '.join(given)}; "
                    f"dtype, order, paddings and padding_offsets come from the descriptor: {descriptor_or_dtype!r}"
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
        if owns_padding is not _UNSET:
            raise ArgumentTypeError(
                f"owns_padding={owns_padding!r} is for NdArray(allocation, descriptor); NdArray(shape, ...) "
                f"allocates its own buffer, whose padding is the library's already: shape={allocation_or_shape!r}"
            )
        if descriptor_or_dtype is not _UNSET and dtype is not _UNSET:
            raise ArgumentTypeError(f"dtype given twice: {descriptor_or_dtype!r} and dtype={dtype!r}")
        chosen = next((t for t in (dtype, descriptor_or_dtype) if t is not _UNSET), "float32")
        d = ShapeDescriptor(allocation_or_shape, chosen, "c" if order is None else order,
                            paddings=paddings, padding_offsets=padding_offsets)
        self._wrap(aligned_bytes(d.alloc_size_in_bytes, DEFAULT_ALIGNMENT_IN_BYTES, zero=True), d, readonly)
        self._root = d

    def _wrap(self, allocation: Any, descriptor: ShapeDescriptor, readonly: bool) -> None:
        refuse_masked(allocation, "NdArray(allocation, descriptor)")
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
        self._readonly = bool(readonly or not allocation.flags.writeable or descriptor.overlaps)
        if allocation.nbytes != descriptor.alloc_size_in_bytes:
            allocation = allocation[: descriptor.alloc_size_in_bytes]
        if self._readonly:
            allocation = read_only_bytes(allocation)  # no view of it can be flagged writeable again
        self._allocation: np.ndarray = allocation
        self._descriptor = descriptor
        self._base_ptr: Optional[int] = None  # read when first asked (base_ptr)
        # The element view, made once: reads (a[1, 2], print) index it; it is never handed out
        # (numpy() gives a fresh view of it), so no caller can reshape or re-flag it.
        d = descriptor
        self._elements = np.ndarray(d.shape, d.dtype, buffer=allocation if d.size else np.empty(0, np.uint8),
                                    offset=d.offset_in_bytes if d.size else 0, strides=d.strides_in_bytes)
        if self._readonly:
            self._elements.flags.writeable = False  # size 0: no byte, but read-only all the same

    @classmethod
    def _of_dense(cls, value: np.ndarray, descriptor: ShapeDescriptor) -> "NdArray":
        """``NdArray(value.reshape(-1).view(np.uint8), descriptor)``: the same object, made
        without the checks the caller's facts settle: ``value`` a plain numpy array (no
        subclass), C-contiguous, aligned, of at least one element, ``descriptor`` its dense one
        (a model load wraps each constant so; tests/test_constant_fast_path.py holds both equal)."""
        allocation = value.reshape(-1).view(np.uint8)
        readonly = not allocation.flags.writeable
        if readonly:
            allocation = read_only_bytes(allocation)
        self = cls.__new__(cls)
        self._allocation = allocation
        self._descriptor = descriptor
        self._readonly = readonly
        # the element view: dense C order over all of the allocation, read-only as it is
        self._elements = allocation.view(descriptor.dtype).reshape(descriptor.shape)
        self._root = None
        self._base_ptr = None
        return self

    @classmethod
    def _made(cls, allocation: np.ndarray, descriptor: ShapeDescriptor, readonly: bool,
              root: Optional[ShapeDescriptor]) -> "NdArray":
        """An NdArray over ``allocation`` whose provenance (``root``) the library knows: what
        ``cls(allocation, descriptor, readonly=readonly)`` makes (its checks in :meth:`_wrap`),
        without the constructor's dispatch over its other forms (a view is made per slice)."""
        self = cls.__new__(cls)
        self._wrap(allocation, descriptor, readonly)
        self._root = root
        return self

    # ------------------------------------------------------------------ constructors
    @classmethod
    @keywords_checked
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
    @keywords_checked
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
    @keywords_checked
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
    @keywords_checked
    def zeros(cls, shape: Iterable[int], dtype: Any = "float32", order: str = "c", **kwargs: Any) -> "NdArray":
        return cls.full(shape, 0, dtype, order, **kwargs)

    @classmethod
    @keywords_checked
    def from_numpy(cls, arr: np.ndarray, *, order: Optional[str] = None) -> "NdArray":
        """Wrap ``arr``'s memory without copying.

        The allocation spans from the lowest to the highest byte any element occupies, so
        negative strides become a positive ``offset``; stride 0 broadcasts are kept, and make
        the NdArray read-only, exactly as numpy does. ``order`` is a preference for arrays
        that are padded buffers in both orders (see ShapeDescriptor.create).

        A view of a bigger dense array (``x[2:10, 2:10]``) is recognised as a padded buffer
        over the whole of ``x``; the "padding" is then ``x``'s other elements, so
        :attr:`padding_is_free` is False for every NdArray made here. A
        ``numpy.ma.MaskedArray`` is refused (NotRepresentableError): its mask would be lost.
        """
        if not isinstance(arr, np.ndarray):
            raise ArgumentTypeError(f"from_numpy expects a numpy.ndarray, got {type(arr).__name__}")
        refuse_masked(arr, "from_numpy")
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
        """Address of the first byte of the allocation (what ACL imports); read once (numpy
        never moves an array's memory, and a model load asks it hundreds of times)."""
        p = self._base_ptr
        if p is None:
            p = self._base_ptr = int(self._allocation.ctypes.data)
        return p

    @property
    def data_ptr(self) -> int:
        """Address of element 0."""
        return self.base_ptr + self._descriptor.offset_in_bytes

    def numpy(self) -> np.ndarray:
        """Zero-copy view of the logical elements (padding excluded); not writeable (and not
        to be made so) when the NdArray is read-only. A new view object on every call."""
        view: np.ndarray = self._elements.view()
        return view

    def buffer(self) -> np.ndarray:
        """The whole allocation as a 1-D array of ``dtype`` (padding included). Writeable only
        when every cell of it is an element of this array or free padding: where some cell
        may be someone else's data (memory from ``from_numpy`` with other elements around,
        a slice of a padded buffer, see :meth:`free_padding_mask`) or the NdArray is
        read-only, it is a read-only view."""
        view: np.ndarray = self._allocation.view(self._descriptor.dtype)
        if not self._readonly and not self._outside_is_free():
            view.flags.writeable = False
        return view

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
          consumer reading padding off the strides would find elements there;
        * a read-only array: False (nothing of it may be written).
        """
        d = self._descriptor
        if self._root is None or self._readonly or d.explicit is not None or d.overlaps:
            return False
        if d is self._root or d == self._root:
            return True
        # Views are taken from this array's elements, so they are a subset of the root's;
        # without overlap they are all of them exactly when the counts agree.
        return d.size == self._root.size

    def fill_padding(self, value: Any) -> None:
        """Write ``value`` into every padding cell; elements are not touched.

        Only cells the library knows to be free are written: a padding cell that is not in
        :meth:`free_padding_mask` (memory from ``from_numpy``, where "padding" is the rest of
        the user's array; a slice of a padded buffer, whose "padding" holds the other rows)
        makes the call raise PaddingNotFreeError, and nothing is written."""
        self._check_writeable("fill_padding")
        cells = self.padding_mask()
        if not self._outside_is_free():
            taken = cells & ~self.free_padding_mask()
            raise PaddingNotFreeError(
                f"fill_padding would write {int(taken.sum())} cells outside the elements that the library did not "
                f"allocate as padding (first: cell {int(np.flatnonzero(taken)[0])} of the allocation); they may "
                f"hold other elements of the memory this array views, so nothing was written (expected an array "
                f"whose padding is free: padding_is_free, e.g. NdArray.zeros(shape, paddings=...) or "
                f"a.contiguous(paddings=...)): {self!r}"
            )
        self.buffer()[cells] = value

    def _outside_is_free(self) -> bool:
        """Every cell of the allocation that is not an element of this array is free padding."""
        d = self._descriptor
        if self._root is None:  # memory brought in: only when there is no such cell at all
            return d.size == d.alloc_size and not d.overlaps
        if d is self._root or d == self._root:
            return True
        return not (self.padding_mask() & ~self.free_padding_mask()).any()

    def _check_writeable(self, what: str) -> None:
        if self._readonly:
            raise ReadOnlyError(f"{what} needs a writeable NdArray, this one is read-only: {self._descriptor!r}")

    # ------------------------------------------------------------------ views
    def _view(self, view: np.ndarray, what: Context) -> "NdArray":
        """NdArray over the same allocation for a numpy view of this array's elements (its
        dtype may differ: ``view(dtype)``, ``real``/``imag`` of complex elements). ``what``:
        the operation, for a refusal's message (a callable: spelled only then)."""
        itemsize, nbytes = view.dtype.itemsize, self._allocation.nbytes
        start = self.base_ptr
        at = address(view) if view.size else start
        if view.size and not start <= at < start + nbytes:
            raise NotRepresentableError(f"{context_text(what)} needs a copy: the result does not lie in this "
                                        f"allocation: {self._descriptor!r}")
        offset_in_bytes = at - start
        if any(b % itemsize for b in (nbytes, offset_in_bytes, *view.strides)):
            raise NotRepresentableError(
                f"{context_text(what)} gives {view.dtype} elements at byte offset {offset_in_bytes} with byte strides "
                f"{view.strides} in {nbytes} bytes: not whole {itemsize}-byte elements: {self._descriptor!r}"
            )
        strides, offset = tuple(s // itemsize for s in view.strides), offset_in_bytes // itemsize
        d = padded_view(view.shape, view.dtype, self._descriptor.order, strides, offset, nbytes // itemsize)
        if d is None:  # not a padded buffer in this array's order (or no element): the general factory
            d = ShapeDescriptor(view.shape, view.dtype, self._descriptor.order, strides=strides, offset=offset,
                                alloc_size=nbytes // itemsize if view.size else 0)
        # The root's free cells are counted in its own elements: known only for the same size.
        root = self._root if itemsize == self._descriptor.itemsize else None
        return NdArray._made(self._allocation, d, self._readonly or not view.flags.writeable, root)

    def __getitem__(self, key: Any) -> Any:
        """As numpy: an integer on every axis gives the element, a numpy scalar (``a[1, 2]``
        is ``np.float32(...)``); other basic indexing (slices with any step, Ellipsis, None,
        fewer integers than axes) an NdArray view of the same memory; advanced indexing
        (integer or boolean arrays, NdArrays too) numpy's copy."""
        item = self._elements[key]
        if type(item) is not np.ndarray:
            return item  # an element: numpy's scalar
        if item.size and not np.may_share_memory(item, self._elements):
            return item  # advanced indexing: numpy's copy (fresh memory)
        return self._view(item, lambda: f"indexing with {key!r}")

    def __setitem__(self, key: Any, value: Any) -> None:
        """``a[key] = value`` writes the selected elements (never padding), as numpy."""
        if self._readonly:
            self._check_writeable("assignment")
        self._elements[key] = value

    def transpose(self, *axes: Any) -> "NdArray":
        axes = tuple(axes[0]) if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        return self._view(self._elements.transpose(*axes) if axes else self._elements.T, f"transpose{axes}")

    permute = transpose

    @property
    def T(self) -> "NdArray":
        """The transpose (all axes reversed), a view, as ``np.ndarray.T``."""
        return self.transpose()

    def swapaxes(self, axis1: int, axis2: int) -> "NdArray":
        """Two axes interchanged, a view, as ``np.ndarray.swapaxes``."""
        return self._view(self._elements.swapaxes(axis1, axis2), f"swapaxes({axis1}, {axis2})")

    @keywords_checked
    def squeeze(self, axis: Any = None) -> "NdArray":
        """Without the axes of length one (or only ``axis``), a view, as ``np.ndarray.squeeze``."""
        return self._view(self._elements.squeeze(axis), f"squeeze({axis!r})")

    def view(self, dtype: Any = _UNSET, type: Any = _UNSET) -> Any:
        """As ``np.ndarray.view``: ``view()`` a new NdArray of the same memory and layout;
        ``view(dtype)`` the same bytes read as ``dtype``, an NdArray; ``view(np.ndarray)`` (or
        ``type=``) numpy's view of the elements."""
        if type is not _UNSET or (isinstance(dtype, builtins.type) and issubclass(dtype, np.ndarray)):
            args = [a for a in (dtype, type) if a is not _UNSET]
            return self.numpy().view(*args)
        if dtype is _UNSET:
            return NdArray._made(self._allocation, self._descriptor, self._readonly, self._root)
        return self._view(self._elements.view(dtype), f"view({dtype!r})")

    @property
    def real(self) -> "NdArray":
        """The real parts, an NdArray view (the array itself, as a new view, for real dtypes)."""
        return self._view(self._elements.real, "real") if self.dtype.kind == "c" else self.view()

    @property
    def imag(self) -> Any:
        """The imaginary parts: an NdArray view for complex dtypes; for real ones numpy's
        read-only zeros."""
        return self._view(self._elements.imag, "imag") if self.dtype.kind == "c" else self._elements.imag

    def reshape(self, *shape: Any) -> "NdArray":
        """A view with a new shape, or NotRepresentableError where numpy would need a copy."""
        shape = tuple(shape[0]) if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        src = self._elements
        try:
            view = src.reshape(shape)
        except (ValueError, TypeError) as e:
            raise InvalidLayoutError(f"cannot reshape {self.shape} to {shape}: {e}: {self._descriptor!r}") from None
        # a copy is a fresh allocation while src lives, so its bounds never meet src's; a view
        # starts at src's first element: the bounds test answers exactly what np.shares_memory
        # would, without its exact solver (milliseconds a call under emulation)
        if view.size and not np.may_share_memory(view, src):
            raise NotRepresentableError(
                f"reshape from {self.shape} to {tuple(shape)} needs a copy for strides "
                f"{self._descriptor.strides}; call contiguous() first: {self._descriptor!r}"
            )
        return self._view(view, lambda: f"reshape{tuple(shape)}")

    def broadcast_to(self, shape: Sequence[int]) -> "NdArray":
        """Read-only view with stride 0 along broadcast dimensions."""
        try:
            view = np.broadcast_to(self._elements, tuple(shape))
        except ValueError as e:
            raise InvalidLayoutError(f"cannot broadcast {self.shape} to {tuple(shape)}: {e}: {self._descriptor!r}") from None
        return self._view(view, f"broadcast_to{tuple(shape)}")

    # ------------------------------------------------------------------ copies
    @keywords_checked
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
        out._elements[...] = self._elements
        return out

    @keywords_checked
    def copy(self, order: str = "C") -> "NdArray":
        """A dense copy in a new, writeable allocation, as ``np.ndarray.copy(order)``: 'C'
        (the default), 'F', or 'A'/'K' (F order when the elements are F- and not C-contiguous,
        else C; numpy's 'K' may also keep other stride orders). ``copy.copy(a)`` and
        ``copy.deepcopy(a)`` are ``a.copy()``."""
        return self.contiguous(_dense_order(order, self._elements))

    def __copy__(self) -> "NdArray":
        return self.copy()

    def __deepcopy__(self, memo: Any) -> "NdArray":
        return self.copy()

    def __reduce__(self) -> Tuple[Any, ...]:
        """Pickles the elements (a dense copy, as numpy pickles) and ``readonly``."""
        return _unpickled, (np.ascontiguousarray(self._elements), self._readonly)

    @keywords_checked
    def astype(self, dtype: Any, order: str = "K", casting: str = "unsafe", copy: bool = True) -> "NdArray":
        """A dense copy converted to ``dtype``, as ``np.ndarray.astype``: ``dtype=None`` is
        float64, ``casting`` numpy's rules (a TypeError from numpy when they refuse),
        ``copy=False`` returns the array itself when the dtype is already ``dtype``."""
        if not copy and np.dtype(dtype) == self.dtype:
            return self
        out = NdArray(self.shape, dtype, _dense_order(order, self._elements))
        np.copyto(out._elements, self._elements, casting=casting)  # type: ignore[arg-type]
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

    @keywords_checked
    def to_string(self, *, show_padding: bool = False) -> str:
        """``str(a)``: the elements as numpy prints them. ``show_padding=True``: the whole
        allocation instead, as the padded grid for a padded buffer (1-D for other layouts),
        every cell that is not an element in parentheses (see :mod:`ndarray.display`)."""
        if not show_padding:
            return str(self._elements)
        d = self._descriptor
        grid = d.padded_shape if d.explicit is None else (d.alloc_size,)
        order: Literal["C", "F"] = "F" if d.explicit is None and d.order == "f" else "C"
        return cells_text(self.buffer().reshape(grid, order=order),
                          self.padding_mask().reshape(grid, order=order))


def _dense_order(order: Any, elements: np.ndarray) -> str:
    """numpy's copy orders 'C', 'F', 'A', 'K' as the dense order of a copy ('c' or 'f')."""
    key = order.upper() if isinstance(order, str) else order
    if key in ("A", "K"):
        return "f" if elements.flags.f_contiguous and not elements.flags.c_contiguous else "c"
    if key in ("C", "F"):
        return str(key).lower()
    raise UnsupportedOptionError(f"order is {order!r}, expected one of 'C', 'F', 'A', 'K' (numpy's copy orders)")


def _unpickled(elements: np.ndarray, readonly: bool) -> NdArray:
    out = NdArray(elements.shape, elements.dtype)
    out._elements[...] = elements
    return NdArray._made(out._allocation, out._descriptor, True, out._root) if readonly else out
