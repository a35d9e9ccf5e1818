"""The arithmetic room (native/acl_shim_arithmetic.cpp): Add, Sub (ACL's ArithmeticAddition /
ArithmeticSubtraction) and Mul (ACL's PixelWiseMultiplication), each a, b, dst broadcasting
over dimensions of size 1, with ACL's convert policy and a fused activation."""

from __future__ import annotations

from typing import Optional, Tuple

from .. import abi, functions
from ..functions import AclFunction


class _AddOrSub(AclFunction):
    roles, outputs = ("a", "b", "dst"), ("dst",)
    in_place = True  # element-wise: an output identical to an input is safe

    @classmethod
    def _params(cls, policy: str = "saturate", activation: Optional[str] = None, act_a: float = 0.0,
                act_b: float = 0.0):
        p = functions.default_params()
        p.convert_policy = abi.code(abi.POLICIES, policy, "policy")
        functions._activation_params(p, activation, act_a, act_b)
        return p


class Add(_AddOrSub):
    """dst = a + b with numpy-style broadcasting over dimensions of size 1."""

    kind = "add"


class Sub(_AddOrSub):
    """dst = a - b with numpy-style broadcasting over dimensions of size 1."""

    kind = "sub"


class Mul(AclFunction):
    """dst = a * b * scale (broadcasting). ACL accepts scale 1/2**n (0 <= n <= 15) or 1/255."""

    kind, roles, outputs = "mul", ("a", "b", "dst"), ("dst",)
    in_place = True  # element-wise: an output identical to an input is safe

    @classmethod
    def _params(cls, scale: float = 1.0, policy: str = "saturate", rounding: str = "to_zero",
                activation: Optional[str] = None, act_a: float = 0.0, act_b: float = 0.0):
        p = functions.default_params()
        p.scale = scale
        p.convert_policy = abi.code(abi.POLICIES, policy, "policy")
        p.rounding_policy = abi.code(abi.ROUNDING, rounding, "rounding")
        functions._activation_params(p, activation, act_a, act_b)
        return p


CLASSES: Tuple[type, ...] = (Add, Sub, Mul)

__all__ = ['Add', 'Sub', 'Mul', "CLASSES"]
