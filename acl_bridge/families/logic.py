"""The logic family: comparisons of (a, b, dst) with numpy-style broadcasting over dimensions
of size 1 (ACL's NEElementwiseComparison / CLComparison): Equal, NotEqual, Less, LessEqual,
Greater, GreaterEqual; the logical operators (NE/CLLogicalAnd, Or, Not): LogicalAnd,
LogicalOr, LogicalNot; ArgMax / ArgMin along one axis (NE/CLArgMinMaxLayer); Select (NE/CLSelect).
One native room builds them all (native/acl_shim_logic.cpp): a kind is one class here and
one row there.

Truth values are one byte: dst of a comparison or a logical operator is bool or uint8 and
holds 0 or 1 (ACL's comparison writes 255 for true; the native kind turns that into 1 in
place with ACL's multiplication, see the room), inputs of the logical operators and Select's
condition are bool or uint8, any nonzero byte true. Comparisons take float32 / float16,
int32, int16, uint8 and int8 (quantized: each input with its own scale and zero point,
compared as real values; uint8 without quantization from ACL 24.x) where ACL's validate()
takes them. ACL 20.08 has the comparisons, ArgMax / ArgMin and Select on NEON but no logical
functions (refused with :class:`~acl_bridge.errors.AclUnsupportedError` naming them). ArgMax
/ ArgMin's dst lacks the reduced axis; int64 indices only on CL (NEON's validate() refuses an
int64 dst in 20.08 and 24.11 alike, measured)."""

from __future__ import annotations

from typing import Tuple

from ..functions import AclFunction
from .reduction import Reduction


class Comparison(AclFunction):
    """dst = op(a, b) as 0 / 1, broadcasting like numpy over dimensions of size 1 (either input)."""

    roles, outputs = ("a", "b", "dst"), ("dst",)


class Equal(Comparison):
    """dst = a == b."""

    kind = "equal"


class NotEqual(Comparison):
    """dst = a != b."""

    kind = "not_equal"


class Less(Comparison):
    """dst = a < b."""

    kind = "less"


class LessEqual(Comparison):
    """dst = a <= b."""

    kind = "less_equal"


class Greater(Comparison):
    """dst = a > b."""

    kind = "greater"


class GreaterEqual(Comparison):
    """dst = a >= b."""

    kind = "greater_equal"


class LogicalAnd(AclFunction):
    """dst = a and b (bytes: nonzero is true; dst 0 / 1), broadcasting over dimensions of size 1."""

    kind = "logical_and"
    roles, outputs = ("a", "b", "dst"), ("dst",)


class LogicalOr(LogicalAnd):
    """dst = a or b (bytes: nonzero is true; dst 0 / 1), broadcasting over dimensions of size 1."""

    kind = "logical_or"


class LogicalNot(AclFunction):
    """dst = not src (bytes: nonzero is true; dst 0 / 1)."""

    kind = "logical_not"
    roles, outputs = ("src", "dst"), ("dst",)


class ArgMax(Reduction):
    """dst = src.argmax(axis) (int32 or int64; ties: the first index), the axis removed (numpy
    ``axis`` checked and turned into ACL's as a reduction's)."""

    kind = "arg_max"


class ArgMin(ArgMax):
    """dst = src.argmin(axis) (int32 or int64; ties: the first index), the axis removed."""

    kind = "arg_min"


class Select(AclFunction):
    """dst = where(condition, a, b): condition bool / uint8 of dst's shape (or, ACL's rule, of
    rank 1 along a's outermost axis), a, b and dst of one shape and type."""

    kind = "select"
    roles, outputs = ("condition", "a", "b", "dst"), ("dst",)
    const_roles = ("condition", "a", "b")


COMPARISONS: Tuple[type, ...] = (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual)
CLASSES: Tuple[type, ...] = COMPARISONS + (LogicalAnd, LogicalOr, LogicalNot, ArgMax, ArgMin, Select)

__all__ = ["Comparison", "Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
           "LogicalOr", "LogicalNot", "ArgMax", "ArgMin", "Select", "COMPARISONS", "CLASSES"]
