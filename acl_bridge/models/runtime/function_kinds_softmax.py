"""The softmax room's step kinds (:mod:`acl_bridge.families.softmax`): softmax and log_softmax
(the same class with ``log=True``), each with its beta."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import softmax as S
from .function_kinds import function_kind


@function_kind("softmax", S.Softmax)
def _softmax(p: Mapping[str, object]) -> Dict[str, object]:
    return {"beta": p["beta"]}


@function_kind("log_softmax", S.Softmax)
def _log_softmax(p: Mapping[str, object]) -> Dict[str, object]:
    return {"beta": p["beta"], "log": True}


__all__: list = []
