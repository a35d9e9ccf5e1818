"""The arithmetic room's step kinds (:mod:`acl_bridge.families.arithmetic`): add and sub with
their fused activation (the plan's clamps, :func:`..planning.tflite_plan._fuse_into_additions`);
mul with none (a fused activation is a step of its own)."""

from __future__ import annotations

from ...families import arithmetic as A
from .function_kinds import _fused, _none, function_kind

function_kind("add", A.Add)(_fused)
function_kind("sub", A.Sub)(_fused)
function_kind("mul", A.Mul)(_none)

__all__: list = []
