"""The resize room's step kind (:mod:`acl_bridge.families.resize`): resize with its
interpolation and sampling grid."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import resize as R
from .function_kinds import function_kind


@function_kind("resize", R.Resize)
def _resize(p: Mapping[str, object]) -> Dict[str, object]:
    return {"interpolation": p.get("interpolation", "bilinear"), "align_corners": p["align_corners"],
            "half_pixel_centers": p["half_pixel_centers"]}


__all__: list = []
