"""The softmax room (native/acl_shim_softmax.cpp): Softmax, with ``log=True`` the kind
log_softmax (ACL's SoftmaxLayer / LogSoftmaxLayer)."""

from __future__ import annotations

from typing import Tuple

from .. import functions
from ..functions import AclFunction


class Softmax(AclFunction):
    """Softmax over the last numpy axis: dst = exp(beta*x) / sum(exp(beta*x)); ``log=True``
    for log-softmax."""

    kind, roles, outputs = "softmax", ("src", "dst"), ("dst",)

    @classmethod
    def _params(cls, beta: float = 1.0, log: bool = False):
        p = functions.default_params()
        p.beta = beta
        p.axis = 0
        return p

    @classmethod
    def _kind(cls, log: bool = False, **options) -> str:
        return "log_softmax" if log else "softmax"


CLASSES: Tuple[type, ...] = (Softmax,)

__all__ = ['Softmax', "CLASSES"]
