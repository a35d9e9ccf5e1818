"""The 2-D pooling room's step kind (:mod:`acl_bridge.families.pooling`): pooling with its
type, kernel, stride and the plan's window as ACL's padding (padding cells excluded)."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import pooling as P
from .function_kinds import _window, function_kind


@function_kind("pooling", P.Pooling)
def _pooling(p: Mapping[str, object]) -> Dict[str, object]:
    return {"pool_type": p["pool_type"], "kernel": p["kernel"], "stride": p["stride"],
            "padding": _window(p["padding"]), "exclude_padding": True}  # type: ignore[arg-type]


__all__: list = []
