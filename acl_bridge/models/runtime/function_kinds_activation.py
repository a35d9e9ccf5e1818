"""The activation room's step kinds (:mod:`acl_bridge.families.activation`): activation (the
function and its a, b) and prelu (no options)."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import activation as A
from .function_kinds import _none, function_kind


@function_kind("activation", A.Activation)
def _activation(p: Mapping[str, object]) -> Dict[str, object]:
    return {"function": p["function"], "a": p["a"], "b": p["b"]}


function_kind("prelu", A.PRelu)(_none)

__all__: list = []
