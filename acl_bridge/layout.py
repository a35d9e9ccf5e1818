"""Dimension order and sides: the one module that knows which way round things are.

Three conventions meet here, and nowhere else:

* **numpy order** (everywhere in this library): outermost dimension first, ``shape[-1]``
  moves fastest in C order.
* **ACL order** (only inside ACL descriptions and the native ABI): dimension 0 is the
  innermost one (x). :func:`to_acl_order` is THE one function that reverses dimension order;
  it is its own inverse.
* **data layouts**: numpy ``(N, C, H, W)`` is ``NCHW`` (ACL sees ``(W, H, C, N)``, x = W);
  numpy ``(N, H, W, C)`` is ``NHWC`` (ACL sees ``(C, W, H, N)``, x = C).

Sides: a flat 4-tuple of sides is always in **ACL's PaddingSize order, (top, right, bottom,
left)** (clockwise from the top, as CSS does), the order of :class:`PaddingSize`,
``PaddingSize.as_tuple()`` and the ABI's ``acl_shim_padding``. Window padding of a
convolution or pooling may also be given the numpy way, ``((top, bottom), (left, right))``
(``np.pad``'s pad_width for the H and W axes), or as ``(pad_h, pad_w)`` or one int; a flat
4-tuple is refused there, because two orders for it are common and a wrong guess is silent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, Tuple, TypeVar

from ndarray.errors import ArgumentTypeError, IndexOutOfRangeError, InvalidLayoutError, UnsupportedOptionError
from ndarray.strides import as_int

DATA_LAYOUTS = ("NCHW", "NHWC")
SIDES = ("top", "right", "bottom", "left")  # the one order of flat side tuples


_T = TypeVar("_T")


def to_acl_order(values: Sequence[_T]) -> Tuple[_T, ...]:
    """numpy order (outermost first) <-> ACL order (x, the innermost, first).

    The only function in the project that reverses dimension order; it is its own inverse.
    """
    return tuple(reversed(tuple(values)))


def check_int(value: object, field: str, *, minimum: int = 0) -> int:
    """The library's one integer rule (:func:`ndarray.strides.as_int`: an int or numpy
    integer, never a bool), plus a lower bound, the field named in every error."""
    v = as_int(value, field)
    if v < minimum:
        raise InvalidLayoutError(f"{field} is {v}, expected an integer >= {minimum}")
    return v


@dataclass(frozen=True)
class PaddingSize:
    """ACL's PaddingSize, in elements, around the x (left/right) and y (top/bottom) axes."""

    top: int = 0
    right: int = 0
    bottom: int = 0
    left: int = 0

    def __post_init__(self) -> None:
        if type(self.top) is int and type(self.right) is int and type(self.bottom) is int \
                and type(self.left) is int and min(self.top, self.right, self.bottom, self.left) >= 0:
            return  # the common case, what check_int passes (a load makes hundreds)
        for side in SIDES:
            check_int(getattr(self, side), f"PaddingSize.{side}")

    def __repr__(self) -> str:
        return f"PaddingSize(top={self.top}, right={self.right}, bottom={self.bottom}, left={self.left})"

    @classmethod
    def from_tuple(cls, sides: Sequence[int]) -> "PaddingSize":
        """From a flat (top, right, bottom, left) tuple (:data:`SIDES`)."""
        sides = tuple(sides)
        if len(sides) != 4:
            raise InvalidLayoutError(f"sides is {sides!r}, expected 4 values in the order {SIDES}")
        return cls(*sides)

    def union(self, other: "PaddingSize") -> "PaddingSize":
        """Largest padding per side, as ACL's extend_padding combines them (one of the two
        values itself where it covers the other: a load unions hundreds, mostly equal)."""
        if self.top >= other.top and self.right >= other.right and self.bottom >= other.bottom \
                and self.left >= other.left:
            return self
        if other.top >= self.top and other.right >= self.right and other.bottom >= self.bottom \
                and other.left >= self.left:
            return other
        return PaddingSize(*(max(a, b) for a, b in zip(self.as_tuple(), other.as_tuple())))

    def as_tuple(self) -> Tuple[int, int, int, int]:
        """(top, right, bottom, left): :data:`SIDES` order."""
        return (self.top, self.right, self.bottom, self.left)

    def covers(self, needed: "PaddingSize") -> bool:
        return all(a >= b for a, b in zip(self.as_tuple(), needed.as_tuple()))

    def for_rank(self, rank: int) -> "PaddingSize":
        """The part of this padding a tensor of ``rank`` dimensions can have: a 1-D tensor keeps
        its bottom, whole rows after it that ACL's 1-D TensorInfo counts in its total size
        (20.08's depthwise asks its bias for them), and drops its top (left and right stay):
        this value itself where it keeps all of it (a load asks it of every bias)."""
        return self if rank >= 2 or not self.top else PaddingSize(right=self.right, bottom=self.bottom, left=self.left)

    def __bool__(self) -> bool:
        return any(self.as_tuple())


NO_PADDING = PaddingSize()  # (one value for every "no padding" default: a load asks it of hundreds of tensors)


def window_padding(padding: Any, field: str = "padding") -> PaddingSize:
    """Convolution/pooling padding as a PaddingSize, from an int (every side), ``(pad_h, pad_w)``,
    ``((top, bottom), (left, right))`` (np.pad style) or a PaddingSize."""
    if isinstance(padding, PaddingSize):
        return padding
    if isinstance(padding, (int,)) and not isinstance(padding, bool):
        p = check_int(padding, field)
        return PaddingSize(p, p, p, p)
    try:
        items = tuple(padding)
    except TypeError:
        raise ArgumentTypeError(f"{field} is {padding!r}, expected an int, (pad_h, pad_w), "
                                f"((top, bottom), (left, right)) or a PaddingSize") from None
    if len(items) == 2 and all(isinstance(v, (tuple, list)) for v in items):
        (top, bottom), (left, right) = (tuple(v) for v in items)
        return PaddingSize(*(check_int(v, f"{field}[{name}]") for v, name in
                             ((top, "top"), (right, "right"), (bottom, "bottom"), (left, "left"))))
    if len(items) == 2:
        h, w = (check_int(v, f"{field}[{i}]") for i, v in enumerate(items))
        return PaddingSize(h, w, h, w)
    raise UnsupportedOptionError(
        f"{field} is {padding!r}: expected an int, (pad_h, pad_w), ((top, bottom), (left, right)) or "
        f"PaddingSize(top=, right=, bottom=, left=); a flat 4-tuple is ambiguous and refused")


def window_stride(stride: Any, field: str = "stride") -> Tuple[int, int]:
    """(stride_y, stride_x) from an int or a (stride_h, stride_w) pair (numpy order)."""
    if not isinstance(stride, (tuple, list)):
        s = check_int(stride, field, minimum=1)
        return s, s
    if len(stride) != 2:
        raise InvalidLayoutError(f"{field} is {stride!r}, expected an int or (stride_h, stride_w)")
    sy, sx = (check_int(v, f"{field}[{i}]", minimum=1) for i, v in enumerate(stride))
    return sy, sx


def window_kernel(kernel: Any, field: str = "kernel") -> Tuple[int, int]:
    """(kernel_h, kernel_w) from an int or a pair (numpy order)."""
    return window_stride(kernel, field)


def permutation_to_acl(axes: Sequence[int]) -> Tuple[int, ...]:
    """numpy ``np.transpose`` axes -> ACL's PermutationVector (dst dimension i takes src
    dimension perm[i], both in ACL order)."""
    axes = tuple(check_int(a, "axes[]") for a in axes)
    r = len(axes)
    if sorted(axes) != list(range(r)):
        raise InvalidLayoutError(f"axes is {axes}, expected a permutation of 0..{r - 1}")
    return tuple(r - 1 - axes[r - 1 - i] for i in range(r))


def pad_width_to_acl(pad_width: Any) -> Tuple[Tuple[int, int], ...]:
    """numpy ``np.pad`` pad_width ((before, after) per numpy axis) -> per ACL dimension."""
    try:
        pairs = [tuple(pw) for pw in pad_width]
    except TypeError:
        raise ArgumentTypeError(f"pad_width is {pad_width!r}, expected ((before, after), ...) per axis") from None
    out = []
    for i, pw in enumerate(pairs):
        if len(pw) != 2:
            raise InvalidLayoutError(f"pad_width[{i}] is {pw!r}, expected (before, after)")
        out.append((check_int(pw[0], f"pad_width[{i}][0]"), check_int(pw[1], f"pad_width[{i}][1]")))
    return to_acl_order(out)


def slice_bounds(shape: Sequence[int], begin: Sequence[int], end: Sequence[int], strides: Sequence[int],
                 begin_mask: int = 0, end_mask: int = 0, shrink_axis_mask: int = 0, name: str = "StridedSlice"
                 ) -> Tuple[Tuple[Tuple[int, int, int], ...], Tuple[int, ...]]:
    """((start, stop, step) per axis resolved as numpy's ``slice(b, e, s).indices(n)`` with the
    masks applied, the result's shape): a begin_mask / end_mask bit takes the axis from its
    start / to its end, a shrink_axis_mask bit the one element at begin (the axis dropped).
    Refused: entries not one per axis, steps below 1, a shrunk index out of range, an empty
    result (UnsupportedOptionError / IndexOutOfRangeError naming the field and value)."""
    rank = len(shape)
    for field, values in (("begin", begin), ("end", end), ("strides", strides)):
        if len(values) != rank:
            raise UnsupportedOptionError(f"{name}: {field} has {len(values)} entries, expected {rank} "
                                         f"(one per axis of a rank-{rank} src)")
    for k, s in enumerate(strides):
        if s < 1:
            raise UnsupportedOptionError(f"{name}: strides[{k}] is {s}, expected >= 1 (negative and zero strides "
                                         f"are not supported)")
    bounds, out = [], []
    for k, n in enumerate(shape):
        if shrink_axis_mask >> k & 1:
            b = begin[k] + n if begin[k] < 0 else begin[k]
            if not 0 <= b < n:
                raise IndexOutOfRangeError(f"{name}: begin[{k}] is {begin[k]}, expected -{n}..{n - 1} for axis {k} "
                                           f"of extent {n} (shrink_axis_mask takes one element)")
            bounds.append((b, b + 1, 1))
            continue
        start, stop, step = slice(None if begin_mask >> k & 1 else begin[k],
                                  None if end_mask >> k & 1 else end[k], strides[k]).indices(n)
        extent = len(range(start, stop, step))
        if extent == 0:
            raise UnsupportedOptionError(f"{name}: axis {k} slices {begin[k]}:{end[k]}:{strides[k]} of extent {n}, "
                                         f"which is empty (an empty result is not supported)")
        bounds.append((start, stop, step))
        out.append(extent)
    return tuple(bounds), tuple(out)
