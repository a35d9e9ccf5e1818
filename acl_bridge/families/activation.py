"""The activation room (native/acl_shim_activation.cpp): Activation (ACL's ActivationLayer:
relu, bounded relu, logistic, tanh, leaky relu, elu, hard swish, ...; TFLite's activation
operators and fused activations) and PRelu (ACL's PReluLayer, the slope broadcasting)."""

from __future__ import annotations

from typing import Tuple

from ndarray.errors import UnsupportedOptionError

from .. import abi, functions
from ..functions import AclFunction


class Activation(AclFunction):
    """dst = f(src). ``function``: relu, bounded_relu (min(a, max(0,x))), lu_bounded_relu
    (min(a, max(b,x))), leaky_relu (a*x for x<0), logistic, tanh (a*tanh(b*x)), soft_relu,
    elu, abs, square, sqrt, linear (a*x+b), identity, hard_swish; swish, gelu (24.11)."""

    kind, roles, outputs = "activation", ("src", "dst"), ("dst",)
    in_place = True  # element-wise: an output identical to an input is safe

    @classmethod
    def _params(cls, function: str = "relu", a: float = 0.0, b: float = 0.0):
        if function is None or function == "none":
            raise UnsupportedOptionError(f"function is {function!r}, expected an activation function")
        p = functions.default_params()
        p.activation = abi.code(abi.ACTIVATIONS, function, "function")
        p.act_a, p.act_b = a, b
        return p


class PRelu(AclFunction):
    """dst = src where src > 0, else alpha * src (ACL's NEPReluLayer/CLPReluLayer); alpha
    broadcasts like numpy over dimensions of size 1, e.g. one slope per channel: alpha of
    shape (1, 1, 1, C) for NHWC src, (1, C, 1, 1) for NCHW. TFLite's PRELU."""

    kind, roles, outputs = "prelu", ("src", "alpha", "dst"), ("dst",)

    @classmethod
    def _params(cls):
        return functions.default_params()


CLASSES: Tuple[type, ...] = (Activation, PRelu)

__all__ = ['Activation', 'PRelu', "CLASSES"]
