"""The elementwise family: ACL's binary functions of (a, b, dst) with numpy-style broadcasting
over dimensions of size 1 (NEElementwiseDivision/Max/Min/SquaredDiff/Power and their CL
twins, CLArithmeticDivision for the division), and its unary functions of (src, dst)
(NEAbsLayer, NEExpLayer, NELogLayer, NENegLayer, NERsqrtLayer, NESinLayer, NERoundLayer,
NEFloor and their CL twins). One native builder serves each shape
(native/acl_shim_elementwise.cpp): a kind is one class here and one row there.

Data types are ACL's (its validate() refuses the others, naming them): the division and the
power float32 / float16; maximum, minimum and squared difference also int32, int16, uint8
and int8 (quantized: each input and the output with its own scale and zero point); the unary
kinds float32 / float16, abs and neg also int32. ACL 20.08 has every kind on NEON; CL needs
ACL 24.x."""

from __future__ import annotations

from typing import Tuple

from ..functions import AclFunction


class ElementwiseBinary(AclFunction):
    """dst = op(a, b), broadcasting like numpy over dimensions of size 1 (either input)."""

    roles, outputs = ("a", "b", "dst"), ("dst",)

class ElementwiseUnary(AclFunction):
    """dst = op(src)."""

    roles, outputs = ("src", "dst"), ("dst",)

class Div(ElementwiseBinary):
    """dst = a / b (IEEE: x / 0 is inf or nan)."""

    kind = "div"


class Maximum(ElementwiseBinary):
    """dst = max(a, b)."""

    kind = "maximum"


class Minimum(ElementwiseBinary):
    """dst = min(a, b)."""

    kind = "minimum"


class SquaredDifference(ElementwiseBinary):
    """dst = (a - b) ** 2."""

    kind = "squared_difference"


class Power(ElementwiseBinary):
    """dst = a ** b (ACL: a positive base where b is not an integer)."""

    kind = "power"


class Abs(ElementwiseUnary):
    """dst = |src|."""

    kind = "abs"


class Exp(ElementwiseUnary):
    """dst = exp(src)."""

    kind = "exp"


class Log(ElementwiseUnary):
    """dst = log(src) (natural logarithm)."""

    kind = "log"


class Neg(ElementwiseUnary):
    """dst = -src."""

    kind = "neg"


class Rsqrt(ElementwiseUnary):
    """dst = 1 / sqrt(src)."""

    kind = "rsqrt"


class Sin(ElementwiseUnary):
    """dst = sin(src)."""

    kind = "sin"


class Round(ElementwiseUnary):
    """dst = src rounded to the nearest integer, ties to even (numpy's and TFLite's ROUND)."""

    kind = "round"


class Floor(ElementwiseUnary):
    """dst = floor(src)."""

    kind = "floor"


CLASSES: Tuple[type, ...] = (Div, Maximum, Minimum, SquaredDifference, Power, Abs, Exp, Log, Neg, Rsqrt, Sin, Round,
                             Floor)

__all__ = ["ElementwiseBinary", "ElementwiseUnary", "Div", "Maximum", "Minimum", "SquaredDifference", "Power", "Abs",
           "Exp", "Log", "Neg", "Rsqrt", "Sin", "Round", "Floor", "CLASSES"]
