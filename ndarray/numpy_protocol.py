"""NdArray speaks numpy: the array protocols, operators and the attributes numpy users reach for.

One rule everywhere: numpy works on the *elements* (``NdArray.numpy()``, a zero-copy view
that never includes padding), and an NdArray given as an output is written in place.

* ``a[1, 2]`` (an integer on every axis) is the element, a numpy scalar, as in numpy; so
  ``f"{a[1, 2]:.2f}"``, ``round(a[1, 2])``, ``range(ia[2])`` and ``[10, 20][ia[1]]`` work.
  ``print(a)`` / ``str(a)`` print the elements as numpy does (``a.to_string(show_padding=True)``
  shows the whole allocation); ``repr(a)`` stays the compact descriptor.
* ``np.asarray(a)`` / ``np.array(a)``: ``__array__(dtype=None, copy=None)`` with numpy 2's
  meaning: ``copy=True`` copies, ``copy=False`` refuses (NotRepresentableError, a
  ValueError as numpy raises) where a copy is needed (a dtype change), ``None`` views when
  it can. numpy 1.x passes no ``copy``; ``np.array`` then copies by itself, as it always did.
* ufuncs (``a + 1``, ``np.sqrt(a)``, ``a == b``) through ``__array_ufunc__``, and every other
  numpy function (``np.sum(a)``, ``np.concatenate([a, b])``) through ``__array_function__``:
  NdArrays in the arguments become their element views; the result is numpy's, except that an
  NdArray given as ``out=`` is returned itself, its elements written, its padding untouched.
* Writes: a read-only NdArray written by any path (``out=``, ``a += 1``, ``np.add.at(a, ...)``,
  ``np.copyto(a, ...)``, ``np.put``/``place``/``putmask``/``fill_diagonal``/``put_along_axis``,
  ``a.sort()``, ``a.fill(v)``...) raises ReadOnlyError before anything is written; whatever
  numpy itself refuses as read-only raises ReadOnlyError too.
* ``==`` is elementwise (a numpy bool array), never identity; hence ``__hash__`` is None,
  exactly as for ``np.ndarray`` (an identity hash would make ``{a: 1}[b]`` call
  ``bool(a == b)``, an error or a silent wrong answer).
* ``ndim, size, nbytes, itemsize, strides`` (bytes, as numpy; the descriptor has element
  ``strides`` and ``strides_in_bytes``), ``flags``, ``len(a), iter(a), x in a, bool(a),
  float(a), int(a), operator.index(a), bytes(a), format(a, spec)``, ``tolist``, ``item``,
  ``tobytes``, ``clip``, ``round``, ``sort`` (in place) and the reductions (``sum``,
  ``mean``, ``max``...) mean what they mean in numpy, on the elements (``nbytes`` counts
  elements only; the allocation is ``descriptor.alloc_size_in_bytes``). Views (``T``,
  ``transpose``, ``reshape``, ``squeeze``, ``swapaxes``, ``view``, ``real``) and copies
  (``copy()``, ``astype()``, ``copy.copy``, ``copy.deepcopy``) live on NdArray and return
  NdArrays.
"""

from __future__ import annotations

import operator
from typing import Any, Callable, ClassVar, Dict, Iterator, Optional, Tuple

import numpy as np

from .errors import ArgumentTypeError, NotRepresentableError, ReadOnlyError

#: numpy functions that write into an argument other than ``out``: the argument's name and
#: position. Checked before the call, so a read-only NdArray there raises ReadOnlyError.
_WRITES_ARGUMENT: Dict[Any, Tuple[str, int]] = {
    np.copyto: ("dst", 0),
    np.put: ("a", 0),
    np.place: ("arr", 0),
    np.putmask: ("a", 0),
    np.fill_diagonal: ("a", 0),
    np.put_along_axis: ("arr", 0),
}


def _call_numpy(function: Callable[..., Any], args: Any, kwargs: Dict[str, Any], what: str,
                written: Tuple[Any, ...] = ()) -> Any:
    """``function`` on the element views of the NdArrays in ``args``/``kwargs``; the NdArrays
    it writes (``written`` and any ``out=``) must be writeable, else ReadOnlyError before the
    call. numpy's result, with each element view of an NdArray output replaced by that NdArray."""
    out = kwargs.get("out", ())
    for o in written + (out if isinstance(out, tuple) else (out,)):
        if isinstance(o, NumpyProtocol) and o.readonly:
            raise ReadOnlyError(f"{what} writes into a read-only NdArray, expected a writeable one: {o!r}")
    views: Dict[int, NumpyProtocol] = {}
    try:
        result = function(*_unwrap(args, views), **_unwrap(kwargs, views))
    except ValueError as err:
        # a write numpy refused because an element view is read-only (a positional out=...)
        ro = [v for v in views.values() if v.readonly]
        if ro and "read-only" in str(err):
            raise ReadOnlyError(f"{what}: {err} (numpy): {ro[0]!r}") from None
        raise
    if isinstance(result, tuple):
        return tuple(views.get(id(r), r) for r in result)
    return views.get(id(result), result)


def _numpy_method(name: str, *, in_place: bool = False) -> Callable[..., Any]:
    """A method that runs ``np.ndarray.<name>`` on the elements and returns numpy's result;
    ``in_place``: it writes the elements, so a read-only NdArray raises ReadOnlyError."""

    def method(self: "NumpyProtocol", *args: Any, **kwargs: Any) -> Any:
        return _call_numpy(getattr(self.numpy(), name), args, kwargs, f"{name}()", (self,) if in_place else ())

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (f"``numpy.ndarray.{name}`` on the elements"
                      + (", in place." if in_place else "; a numpy result (or the NdArray given as out)."))
    return method


def _unwrap(value: Any, views: Dict[int, "NumpyProtocol"]) -> Any:
    """``value`` with every NdArray (also inside lists, tuples and dicts) replaced by its
    element view; ``views`` maps id(view) back to the NdArray."""
    if isinstance(value, NumpyProtocol):
        view = value.numpy()
        views[id(view)] = value
        return view
    if isinstance(value, (list, tuple)):
        return type(value)(_unwrap(v, views) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v, views) for k, v in value.items()}
    return value


class ArrayFlags:
    """``a.flags``: numpy's flags of the elements, a frozen snapshot (``a.flags.writeable``,
    ``a.flags["C_CONTIGUOUS"]``...). Setting one raises ReadOnlyError: an NdArray's
    ``readonly`` is fixed when it is made (``NdArray(..., readonly=True)``)."""

    __slots__ = ("c_contiguous", "f_contiguous", "writeable", "aligned")
    _KEYS = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "CONTIGUOUS": "c_contiguous",
             "F_CONTIGUOUS": "f_contiguous", "F": "f_contiguous", "FORTRAN": "f_contiguous",
             "WRITEABLE": "writeable", "W": "writeable", "ALIGNED": "aligned", "A": "aligned"}

    c_contiguous: bool
    f_contiguous: bool
    writeable: bool
    aligned: bool

    def __init__(self, elements: np.ndarray) -> None:
        for name in self.__slots__:
            object.__setattr__(self, name, bool(getattr(elements.flags, name)))

    @property
    def contiguous(self) -> bool:
        return self.c_contiguous

    def __getitem__(self, key: str) -> bool:
        value: bool = getattr(self, self._KEYS[key])  # KeyError for a flag numpy does not have either
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        raise ReadOnlyError(f"flags.{name} cannot be set: an NdArray's flags are fixed when it is made "
                            f"(NdArray(..., readonly=True) for a read-only one)")

    __setitem__ = __setattr__

    def __repr__(self) -> str:
        return "\n".join(f"  {key} : {getattr(self, attr)}" for key, attr in self._KEYS.items() if len(key) > 1
                         and key not in ("CONTIGUOUS", "FORTRAN"))


class NumpyProtocol(np.lib.mixins.NDArrayOperatorsMixin):
    """numpy's protocols and attributes for a class with ``numpy()``, ``readonly``, ``shape``,
    ``dtype`` and ``_elements`` (NdArray); see the module docstring."""

    __slots__ = ()
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # elementwise ==, as np.ndarray

    # provided by NdArray: the element view, made once, for reads only (never handed out)
    _elements: np.ndarray

    def numpy(self) -> np.ndarray:
        raise NotImplementedError

    @property
    def readonly(self) -> bool:
        raise NotImplementedError

    # ------------------------------------------------------------------ protocols
    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        """The elements as a numpy array: a view, or a copy when asked (numpy 2's ``copy=``)."""
        view = self.numpy()
        if dtype is not None and np.dtype(dtype) != view.dtype:
            if copy is False:
                raise NotRepresentableError(
                    f"copy=False but dtype {np.dtype(dtype)} differs from the elements' {view.dtype}: "
                    f"converting needs a copy (numpy raises ValueError here too): {self!r}"
                )
            return view.astype(dtype)
        return view.copy() if copy else view

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        # ufunc.at(a, indices, b) writes into its first input
        written = inputs[:1] if method == "at" else ()
        return _call_numpy(getattr(ufunc, method), inputs, kwargs, f"{ufunc.__name__}.{method}", written)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        name, position = _WRITES_ARGUMENT.get(func, ("", -1))
        written = (kwargs[name],) if name in kwargs else tuple(args[position:position + 1]) if name else ()
        return _call_numpy(func, args, kwargs, getattr(func, "__name__", "a numpy function"), written)

    def __eq__(self, other: Any) -> Any:  # elementwise, as np.ndarray
        """Elementwise ``==`` with numpy's own fallbacks (``a == None`` is all False, not an error)."""
        return self._elements == (other.numpy() if isinstance(other, NumpyProtocol) else other)

    def __ne__(self, other: Any) -> Any:
        return self._elements != (other.numpy() if isinstance(other, NumpyProtocol) else other)

    # ------------------------------------------------------------------ attributes
    @property
    def ndim(self) -> int:
        return self._elements.ndim

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(self._elements.size)

    @property
    def itemsize(self) -> int:
        return int(self._elements.itemsize)

    @property
    def nbytes(self) -> int:
        """Bytes of the elements (``size * itemsize``), as numpy; padding not counted."""
        return int(self._elements.nbytes)

    @property
    def strides(self) -> Tuple[int, ...]:
        """Bytes between neighbours along each axis, as ``np.ndarray.strides`` (the
        descriptor's ``strides`` are in elements, its ``strides_in_bytes`` these)."""
        strides: Tuple[int, ...] = self._elements.strides
        return strides

    @property
    def flags(self) -> ArrayFlags:
        """numpy's flags of the elements, a frozen snapshot (see :class:`ArrayFlags`)."""
        return ArrayFlags(self._elements)

    def __len__(self) -> int:
        shape: Tuple[int, ...] = self._elements.shape
        if not shape:
            raise ArgumentTypeError(f"len() of a 0-d NdArray (numpy: 'len() of unsized object'): {self!r}")
        return shape[0]

    def __iter__(self) -> Iterator[Any]:
        """Iterates as numpy does: rows (numpy views of the same memory) or, for 1-D, scalars."""
        if not self._elements.shape:
            raise ArgumentTypeError(f"iteration over a 0-d NdArray (numpy: 'iteration over a 0-d array'): {self!r}")
        return iter(self._elements)

    def __contains__(self, value: Any) -> bool:
        """``value in a``: any element equal to it, as numpy."""
        return bool((self._elements == value).any())

    def __bool__(self) -> bool:
        return bool(self._elements)

    def __float__(self) -> float:
        return float(self._elements)

    def __int__(self) -> int:
        return int(self._elements)

    def __complex__(self) -> complex:
        return complex(self._elements)

    def __index__(self) -> int:
        """A 0-d integer NdArray is an index, as a 0-d integer numpy array (numpy's TypeError otherwise)."""
        return operator.index(self._elements)

    def __bytes__(self) -> bytes:
        """The elements' bytes in C order, as ``bytes(np_array)`` (padding not included)."""
        return self._elements.tobytes()

    def __format__(self, spec: str) -> str:
        """As numpy: ``f"{a:.2f}"`` formats a 0-d array's element; ``f"{a}"`` is ``str(a)``."""
        return format(self._elements, spec)

    def __str__(self) -> str:
        """The elements as numpy prints them (``to_string(show_padding=True)`` for the padding)."""
        return str(self._elements)

    def fill(self, value: Any) -> None:
        """Set every element (not the padding) to ``value``."""
        if self.readonly:
            raise ReadOnlyError(f"fill needs a writeable NdArray, this one is read-only: {self!r}")
        self._elements.fill(value)

    tolist = _numpy_method("tolist")
    item = _numpy_method("item")
    tobytes = _numpy_method("tobytes")
    sum = _numpy_method("sum")
    prod = _numpy_method("prod")
    mean = _numpy_method("mean")
    std = _numpy_method("std")
    var = _numpy_method("var")
    min = _numpy_method("min")
    max = _numpy_method("max")
    argmin = _numpy_method("argmin")
    argmax = _numpy_method("argmax")
    argsort = _numpy_method("argsort")
    any = _numpy_method("any")
    all = _numpy_method("all")
    cumsum = _numpy_method("cumsum")
    cumprod = _numpy_method("cumprod")
    clip = _numpy_method("clip")
    round = _numpy_method("round")
    conj = _numpy_method("conj")
    conjugate = _numpy_method("conjugate")
    nonzero = _numpy_method("nonzero")
    searchsorted = _numpy_method("searchsorted")
    repeat = _numpy_method("repeat")
    take = _numpy_method("take")
    compress = _numpy_method("compress")
    diagonal = _numpy_method("diagonal")
    trace = _numpy_method("trace")
    dot = _numpy_method("dot")
    flatten = _numpy_method("flatten")
    ravel = _numpy_method("ravel")
    sort = _numpy_method("sort", in_place=True)
    partition = _numpy_method("partition", in_place=True)
    put = _numpy_method("put", in_place=True)
