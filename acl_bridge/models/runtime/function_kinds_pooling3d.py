"""The step kind of 3-D pooling (:mod:`acl_bridge.families.pooling3d`), registered in
:mod:`.function_kinds`' table by its one import line."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import pooling3d as P
from .function_kinds import function_kind


@function_kind("pooling_3d", P.Pooling3D)
def _pooling_3d(p: Mapping[str, object]) -> Dict[str, object]:
    return {"pool_type": p["pool_type"], "kernel": p["kernel"], "stride": p["stride"], "padding": p["padding"],
            "exclude_padding": True}


__all__: list = []
