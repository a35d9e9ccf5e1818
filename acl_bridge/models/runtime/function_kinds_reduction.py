"""The reduction family's step kinds (:mod:`acl_bridge.families.reduction`): the numpy axis."""

from __future__ import annotations

from ...families import reduction as R
from .function_kinds import _axis, function_kind

for _cls in R.CLASSES:
    function_kind(_cls.kind, _cls)(_axis)

__all__: list = []
