"""NdArray speaks numpy: the array protocols, operators and the attributes numpy users reach for.

One rule everywhere: numpy works on the *elements* (``NdArray.numpy()``, a zero-copy view
that never includes padding), and an NdArray given as an output is written in place.

* ``np.asarray(a)`` / ``np.array(a)``: ``__array__(dtype=None, copy=None)`` with numpy 2's
  meaning: ``copy=True`` copies, ``copy=False`` refuses (NotRepresentableError, a
  ValueError as numpy raises) where a copy is needed (a dtype change), ``None`` views when
  it can. numpy 1.x passes no ``copy``; ``np.array`` then copies by itself, as it always did.
* ufuncs (``a + 1``, ``np.sqrt(a)``, ``a == b``) through ``__array_ufunc__``, and every other
  numpy function (``np.sum(a)``, ``np.concatenate([a, b])``) through ``__array_function__``:
  NdArrays in the arguments become their element views; the result is numpy's, except that an
  NdArray given as ``out=`` is returned itself, its elements written, its padding untouched.
  A read-only NdArray as ``out`` raises ReadOnlyError.
* ``==`` is elementwise (a numpy bool array), never identity; hence ``__hash__`` is None,
  exactly as for ``np.ndarray`` (an identity hash would make ``{a: 1}[b]`` call
  ``bool(a == b)``, an error or a silent wrong answer).
* ``ndim, size, nbytes, itemsize, len(a), iter(a), bool(a), float(a), int(a)``, ``tolist``,
  ``item`` and the reductions (``sum``, ``mean``, ``max``...) mean what they mean in numpy,
  on the elements (``nbytes`` counts elements only; the allocation is
  ``descriptor.alloc_size_in_bytes``). ``T``, ``copy()`` and ``astype()`` live on NdArray and
  return NdArrays (a view, new dense buffers).
"""

from __future__ import annotations

from typing import Any, Callable, ClassVar, Dict, Iterator, Optional, Tuple

import numpy as np

from .errors import ArgumentTypeError, NotRepresentableError, ReadOnlyError


def _numpy_method(name: str) -> Callable[..., Any]:
    """A method that runs ``np.ndarray.<name>`` on the elements and returns numpy's result."""

    def method(self: "NumpyProtocol", *args: Any, **kwargs: Any) -> Any:
        views: Dict[int, NumpyProtocol] = {}
        result = getattr(self.numpy(), name)(*_unwrap(args, views), **_unwrap(kwargs, views))
        return views.get(id(result), result)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"``numpy.ndarray.{name}`` on the elements; a numpy result (or the NdArray given as out)."
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


def _rewrap(result: Any, views: Dict[int, "NumpyProtocol"]) -> Any:
    """numpy's result with every element view of an NdArray output replaced by that NdArray."""
    if isinstance(result, tuple):
        return tuple(views.get(id(r), r) for r in result)
    return views.get(id(result), result)


def _check_outputs(out: Any, what: str) -> None:
    for o in out if isinstance(out, tuple) else (out,):
        if isinstance(o, NumpyProtocol) and o.readonly:
            raise ReadOnlyError(f"out of {what} is a read-only NdArray, expected a writeable one: {o!r}")


class NumpyProtocol(np.lib.mixins.NDArrayOperatorsMixin):
    """numpy's protocols and attributes for a class with ``numpy()``, ``readonly``, ``shape``
    and ``dtype`` (NdArray); see the module docstring."""

    __slots__ = ()
    __hash__: ClassVar[None] = None  # type: ignore[assignment]  # elementwise ==, as np.ndarray

    # provided by NdArray
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
        _check_outputs(kwargs.get("out", ()), f"{ufunc.__name__}.{method}")
        views: Dict[int, NumpyProtocol] = {}
        result = getattr(ufunc, method)(*_unwrap(inputs, views), **_unwrap(kwargs, views))
        return _rewrap(result, views)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if "out" in kwargs:
            _check_outputs(kwargs["out"], getattr(func, "__name__", "a numpy function"))
        views: Dict[int, NumpyProtocol] = {}
        result = func(*_unwrap(args, views), **_unwrap(kwargs, views))
        return _rewrap(result, views)

    def __eq__(self, other: Any) -> Any:  # elementwise, as np.ndarray
        """Elementwise ``==`` with numpy's own fallbacks (``a == None`` is all False, not an error)."""
        return self.numpy() == (other.numpy() if isinstance(other, NumpyProtocol) else other)

    def __ne__(self, other: Any) -> Any:
        return self.numpy() != (other.numpy() if isinstance(other, NumpyProtocol) else other)

    # ------------------------------------------------------------------ attributes
    @property
    def ndim(self) -> int:
        return len(self.numpy().shape)

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(self.numpy().size)

    @property
    def itemsize(self) -> int:
        return int(self.numpy().itemsize)

    @property
    def nbytes(self) -> int:
        """Bytes of the elements (``size * itemsize``), as numpy; padding not counted."""
        return int(self.numpy().nbytes)

    def __len__(self) -> int:
        shape: Tuple[int, ...] = self.numpy().shape
        if not shape:
            raise ArgumentTypeError(f"len() of a 0-d NdArray (numpy: 'len() of unsized object'): {self!r}")
        return shape[0]

    def __iter__(self) -> Iterator[Any]:
        """Iterates as numpy does: rows (views of the same memory) or, for 1-D, scalars."""
        if not self.numpy().shape:
            raise ArgumentTypeError(f"iteration over a 0-d NdArray (numpy: 'iteration over a 0-d array'): {self!r}")
        return iter(self.numpy())

    def __bool__(self) -> bool:
        return bool(self.numpy())

    def __float__(self) -> float:
        return float(self.numpy())

    def __int__(self) -> int:
        return int(self.numpy())

    def __complex__(self) -> complex:
        return complex(self.numpy())

    def fill(self, value: Any) -> None:
        """Set every element (not the padding) to ``value``."""
        if self.readonly:
            raise ReadOnlyError(f"fill needs a writeable NdArray, this one is read-only: {self!r}")
        self.numpy().fill(value)

    tolist = _numpy_method("tolist")
    item = _numpy_method("item")
    sum = _numpy_method("sum")
    prod = _numpy_method("prod")
    mean = _numpy_method("mean")
    std = _numpy_method("std")
    var = _numpy_method("var")
    min = _numpy_method("min")
    max = _numpy_method("max")
    argmin = _numpy_method("argmin")
    argmax = _numpy_method("argmax")
    any = _numpy_method("any")
    all = _numpy_method("all")
    cumsum = _numpy_method("cumsum")
    dot = _numpy_method("dot")
    flatten = _numpy_method("flatten")
    ravel = _numpy_method("ravel")
