"""The step kind of GATHER_ND with runtime indices (:mod:`acl_bridge.families.gather_nd`),
registered in :mod:`.function_kinds`' table by its module's name."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import gather_nd as G
from .function_kinds import function_kind


@function_kind("gather_nd", G.GatherNd)
def _gather_nd(p: Mapping[str, object]) -> Dict[str, object]:
    return {"dims": p["dims"]}


__all__: list = []
