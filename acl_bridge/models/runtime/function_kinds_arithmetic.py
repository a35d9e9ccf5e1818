"""The arithmetic room's step kinds (:mod:`acl_bridge.families.arithmetic`): add, sub and mul
with their fused activation (the plan's clamps, :func:`..planning.tflite_plan._fuse_clamps_into_arithmetic`)."""

from __future__ import annotations

from ...families import arithmetic as A
from .function_kinds import _fused, function_kind

function_kind("add", A.Add)(_fused)
function_kind("sub", A.Sub)(_fused)
function_kind("mul", A.Mul)(_fused)

__all__: list = []
