"""The copying room's step kinds (:mod:`acl_bridge.families.copying`): pad (its significant pad
widths), permute (the numpy axes) and copy (always places: into a concatenation's slice, or a
reshape)."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import copying as C
from .function_kinds import _none, _significant_pad_width, function_kind


@function_kind("pad", C.Pad)
def _pad(p: Mapping[str, object]) -> Dict[str, object]:
    return {"pad_width": _significant_pad_width(p["pad_width"]), "constant_value": p.get("constant_value", 0.0),
            "mode": p.get("mode", "constant")}


@function_kind("permute", C.Permute)
def _permute(p: Mapping[str, object]) -> Dict[str, object]:
    return {"axes": p["axes"]}


function_kind("copy", C.Copy, places=lambda p: True)(_none)

__all__: list = []
