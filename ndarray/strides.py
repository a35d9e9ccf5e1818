"""Dense strides, the integer rule and the keyword rule: the small helpers every layout module uses.

* :func:`dense_strides` is THE formula for the strides of a packed array, whatever names the
  order: numpy's 'c'/'f', a PyTorch memory format (channels_last visits N, C, H, W as
  C, W, H, N from the innermost), DirectML's interleaved channels, XLA's minor_to_major.
  Every such order is a list of dimensions from the fastest-moving to the slowest::

      stride = 1
      for d in inner_to_outer:  strides[d] = stride;  stride *= shape[d]

  PyTorch's contiguous format multiplies by ``max(shape[d], 1)`` instead, so that strides
  stay distinct when a size is 0 (``size_zero_as_one=True``).
* :func:`as_int` / :func:`as_int_tuple` are THE rule for integer arguments: Python and numpy
  integers are accepted, ``bool`` is refused everywhere (``True`` is an ``int`` to Python,
  never a size to us), anything else too, all with :class:`ArgumentTypeError` naming the
  field, the value and what was expected.
* :func:`keywords_checked` is THE rule for keyword arguments: a keyword a function does not
  take is refused with :class:`ArgumentTypeError` (a ``TypeError``, as Python's own) naming
  it and the keywords the function takes, never accepted and ignored.
"""

from __future__ import annotations

import functools
import inspect
import operator
from typing import Any, Callable, Iterable, Sequence, Tuple, TypeVar, Union, cast

import numpy as np

from .errors import ArgumentTypeError, IndexOutOfRangeError, InvalidLayoutError, UnsupportedOptionError

__all__ = [
    "Order",
    "as_int",
    "as_int_tuple",
    "dense_strides",
    "inner_to_outer",
    "keywords_checked",
    "MEMORY_FORMATS",
    "normalize_memory_format",
    "strides_for",
]

#: 'c', 'f', or dimensions listed from the fastest-moving to the slowest.
Order = Union[str, Sequence[int]]

#: PyTorch's names, as in ``torch.contiguous_format`` / ``torch.channels_last`` /
#: ``torch.channels_last_3d`` (``"preserve"`` is an operator option, not a layout).
MEMORY_FORMATS = ("contiguous", "channels_last", "channels_last_3d")

# Dimensions from INNERMOST (stride 1) to outermost for the channels-last formats:
# NCHW stored as NHWC  -> C fastest, then W, then H, then N.  NCDHW as NDHWC -> C, W, H, D, N.
CHANNELS_LAST_INNER_TO_OUTER = {
    "channels_last": (1, 3, 2, 0),
    "channels_last_3d": (1, 4, 3, 2, 0),
}
REQUIRED_RANK = {"channels_last": 4, "channels_last_3d": 5}
_ALIASES = {
    "contiguous": "contiguous",
    "contiguous_format": "contiguous",
    "channels_last": "channels_last",
    "channels_last_3d": "channels_last_3d",
}


# --------------------------------------------------------------------------- integers
#: Text for error messages, or how to build it (built only when an error is raised).
Context = Union[str, Callable[[], str]]


def context_text(context: Context) -> str:
    """The message context; built only when an error is raised (not on every call)."""
    return context() if callable(context) else context


def as_int(value: Any, field: str, context: Context = "") -> int:
    """``value`` as a Python int; bool, float, str... raise ArgumentTypeError naming ``field``."""
    if isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{field} is {value!r}, a bool, expected an integer{_where(context)}")
    try:
        return operator.index(value)
    except TypeError:
        raise ArgumentTypeError(
            f"{field} is {value!r} of type {type(value).__name__}, expected an integer{_where(context)}"
        ) from None


def _where(context: Context) -> str:
    """``": <context>"`` for an error message, or nothing (built only when raising)."""
    return f": {context_text(context)}" if context else ""


_F = TypeVar("_F", bound=Callable[..., Any])


def keywords_checked(function: _F) -> _F:
    """``function`` refusing, with ArgumentTypeError naming it, any keyword it does not take
    (Python's own refusal is a bare TypeError; a ``**kwargs`` would accept and ignore it)."""
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return function  # forwards its **kwargs to a checked function
    known = frozenset(p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))
    shown = sorted(known - {"self", "cls"})

    @functools.wraps(function)
    def checked(*args: Any, **kwargs: Any) -> Any:
        if kwargs and not known.issuperset(kwargs):
            unknown = sorted(set(kwargs) - known)
            raise ArgumentTypeError(
                f"{function.__qualname__}() got unknown keyword argument{'s' if len(unknown) > 1 else ''} "
                f"{', '.join(map(repr, unknown))}, expected one of {shown}"
            )
        return function(*args, **kwargs)

    return cast(_F, checked)


def as_int_tuple(values: Any, field: str, context: Context = "") -> Tuple[int, ...]:
    """A sequence of integers (each checked by :func:`as_int` as ``field[i]``) as a tuple.

    A single integer is NOT a sequence here (say ``(5,)``); strings and bytes are refused.
    """
    t = type(values)
    if (t is tuple or t is list) and all(type(v) is int for v in values):  # the common case: as checked below
        return values if t is tuple else tuple(values)
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ArgumentTypeError(f"{field} is {values!r}, expected a sequence of integers{_where(context)}")
    items = tuple(values)
    where: Context = context or (lambda: f"{field}={items!r}")
    return tuple(as_int(v, f"{field}[{i}]", where) for i, v in enumerate(items))


def check_index(index: Any, shape: Sequence[int], context: Context) -> Tuple[int, ...]:
    """``index`` as a tuple of ints inside ``shape`` (no negative indices: an element offset
    needs the element itself), or IndexOutOfRangeError naming the entry, value and bound."""
    index_t = as_int_tuple(index, "index", context)
    if len(index_t) != len(shape):
        raise IndexOutOfRangeError(
            f"index has {len(index_t)} entries but shape has rank {len(shape)}: index={index_t}, {context_text(context)}"
        )
    for i, (e, n) in enumerate(zip(index_t, shape)):
        if not 0 <= e < n:
            raise IndexOutOfRangeError(
                f"index[{i}] is {e}, expected 0 <= index[{i}] < {n}: index={index_t}, {context_text(context)}"
            )
    return index_t


# --------------------------------------------------------------------------- dense strides
def inner_to_outer(rank: int, order: Order) -> Tuple[int, ...]:
    """The dimensions of an ``order`` from the fastest-moving to the slowest."""
    if isinstance(order, str):
        key = order.lower()
        if key == "c":
            return tuple(range(rank - 1, -1, -1))
        if key == "f":
            return tuple(range(rank))
        raise UnsupportedOptionError(f"order is {order!r}, expected 'c', 'f' or a permutation of range({rank})")
    dims = as_int_tuple(order, "order")
    if sorted(dims) != list(range(rank)):
        raise UnsupportedOptionError(
            f"order is {dims}, expected 'c', 'f' or a permutation of range({rank}) (innermost first)"
        )
    return dims


def dense_strides(shape: Sequence[int], order: Order = "c", *, size_zero_as_one: bool = False) -> Tuple[int, ...]:
    """Element strides of a dense (packed) array of ``shape`` in ``order``.

    Order 'c': the last dimension moves fastest, ``strides[i] = prod(shape[i+1:])``.
    Order 'f': the first dimension moves fastest, ``strides[i] = prod(shape[:i])``.
    A sequence: those dimensions, innermost first (channels_last is ``(1, 3, 2, 0)``).
    ``size_zero_as_one``: multiply by ``max(shape[d], 1)`` (PyTorch's contiguous strides).
    """
    strides = [0] * len(shape)
    step = 1
    for d in inner_to_outer(len(shape), order):
        strides[d] = step
        step *= max(shape[d], 1) if size_zero_as_one else shape[d]
    return tuple(strides)


# --------------------------------------------------------------------------- memory formats
def normalize_memory_format(memory_format: Any) -> str:
    """The canonical name ("contiguous", "channels_last", "channels_last_3d").

    Accepts those names, "contiguous_format", and ``torch.memory_format`` objects (whose
    ``str`` is ``torch.channels_last``...), without importing torch.
    """
    text = str(memory_format)
    key = text[len("torch."):] if text.startswith("torch.") else text
    try:
        return _ALIASES[key]
    except KeyError:
        raise UnsupportedOptionError(
            f"memory_format is {memory_format!r} but expected one of {MEMORY_FORMATS} "
            f"(or 'contiguous_format' / a torch.memory_format)"
        ) from None


def check_rank_for(shape: Tuple[int, ...], fmt: str) -> None:
    """Refuse a shape whose rank the channels-last format ``fmt`` does not have."""
    rank = REQUIRED_RANK.get(fmt)
    if rank is not None and len(shape) != rank:
        raise InvalidLayoutError(
            f"shape has rank {len(shape)} but memory_format={fmt!r} needs rank {rank} "
            f"({'NCHW' if rank == 4 else 'NCDHW'}): shape={shape}"
        )


def strides_for(shape: Sequence[int], memory_format: Any = "contiguous") -> Tuple[int, ...]:
    """Element strides PyTorch gives a new tensor of ``shape`` in ``memory_format``.

    contiguous (TensorImpl::empty_tensor_restride): dense 'c' strides with sizes 0 counted
    as 1. channels_last (rank 4) / channels_last_3d (rank 5), get_channels_last_strides_2d/3d:
    dense strides over the dimensions (1, 3, 2, 0) / (1, 4, 3, 2, 0), innermost first (no
    max() here: PyTorch doesn't use one either).
    """
    fmt = normalize_memory_format(memory_format)
    shape_t = as_int_tuple(shape, "shape")
    for i, n in enumerate(shape_t):
        if n < 0:
            raise InvalidLayoutError(f"shape[{i}] is {n} but expected a size >= 0: shape={shape_t}")
    if fmt == "contiguous":
        return dense_strides(shape_t, "c", size_zero_as_one=True)
    check_rank_for(shape_t, fmt)
    return dense_strides(shape_t, CHANNELS_LAST_INNER_TO_OUTER[fmt])

