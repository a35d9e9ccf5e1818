"""The elementwise family's step kinds (:mod:`acl_bridge.families.elementwise`): no options (a
fused activation is a step of its own: ACL's binary functions take none)."""

from __future__ import annotations

from ...families import elementwise as E
from .function_kinds import _none, function_kind

for _cls in E.CLASSES:
    function_kind(_cls.kind, _cls)(_none)

__all__: list = []
