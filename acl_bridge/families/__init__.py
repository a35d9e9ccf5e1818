"""ACL function kinds by family, one module each, beside the first kinds of
:mod:`acl_bridge.functions` (whose :class:`~acl_bridge.functions.AclFunction` they extend):
:mod:`.elementwise` (binary with broadcasting: division, maximum, minimum, squared difference,
power; unary: abs, exp, log, neg, rsqrt, sin, round, floor), :mod:`.reduction` (sum, mean,
max, min, product along one axis), :mod:`.logic` (comparisons, logical and / or / not, arg
max / min, select), :mod:`.movement` (strided slice, gather, tile, depth to space, space to
depth, batch to space, space to batch), :mod:`.nn` (deconvolution, L2 normalization, local
response normalization, matmul, 3-D convolution), :mod:`.detection` (SSD detection
post-processing).

:data:`CLASSES` maps every family kind to its class; :func:`function_class` finds a class by
name in the families or in :mod:`acl_bridge.functions`."""

from __future__ import annotations

from typing import Dict

from .. import functions
from . import detection, elementwise, logic, movement, nn, reduction
from .detection import DetectionPostProcess
from .elementwise import (Abs, Div, ElementwiseBinary, ElementwiseUnary, Exp, Floor, Log, Maximum, Minimum, Neg,
                          Power, Round, Rsqrt, Sin, SquaredDifference)
from .logic import (ArgMax, ArgMin, Comparison, Equal, Greater, GreaterEqual, Less, LessEqual, LogicalAnd, LogicalNot,
                    LogicalOr, NotEqual, Select)
from .movement import BatchToSpace, DepthToSpace, Gather, SpaceToBatch, SpaceToDepth, StridedSlice, Tile
from .nn import Convolution3D, Deconvolution, L2Normalize, LocalResponseNormalization, MatMul
from .reduction import ReduceMax, ReduceMean, ReduceMin, ReduceProd, ReduceSum, Reduction

FAMILIES = (elementwise, reduction, logic, movement, nn, detection)
# kind -> class, every family's
CLASSES: Dict[str, type] = {cls.kind: cls for family in FAMILIES for cls in family.CLASSES}


def function_class(name: str) -> type:
    """The function class called ``name`` (``"Div"``, ``"Convolution"``...), from a family or
    :mod:`acl_bridge.functions`; AttributeError naming it where there is none."""
    for family in FAMILIES:
        if name in family.__all__:
            return getattr(family, name)
    cls = getattr(functions, name, None)
    if not (isinstance(cls, type) and issubclass(cls, functions.AclFunction)):
        raise AttributeError(f"no ACL function class {name!r} in acl_bridge.functions or its families")
    return cls


__all__ = ["CLASSES", "FAMILIES", "function_class", "ElementwiseBinary", "ElementwiseUnary", "Div", "Maximum",
           "Minimum", "SquaredDifference", "Power", "Abs", "Exp", "Log", "Neg", "Rsqrt", "Sin", "Round", "Floor",
           "Reduction", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "Comparison", "Equal",
           "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
           "ArgMax", "ArgMin", "Select",
           "StridedSlice", "Gather", "Tile", "DepthToSpace", "SpaceToDepth", "BatchToSpace", "SpaceToBatch",
           "Deconvolution", "L2Normalize", "LocalResponseNormalization", "MatMul", "Convolution3D",
           "DetectionPostProcess"]
