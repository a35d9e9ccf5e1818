"""The logic family's step kinds (:mod:`acl_bridge.families.logic`): the comparisons and the
logical operators (no options), arg max / min (the numpy axis), select (no options)."""

from __future__ import annotations

from ...families import logic as L
from .function_kinds import _axis, _none, function_kind

for _cls in L.CLASSES:
    function_kind(_cls.kind, _cls)(_axis if issubclass(_cls, L.ArgMax) else _none)
