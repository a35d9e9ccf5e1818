"""The step kind of the LSTM family (:mod:`acl_bridge.families.lstm`), registered in
:mod:`.function_kinds`' table by its one import line. A step's ``absent`` parameter (the
roles it leaves out) is read by :mod:`.step_calls`, not passed to the function."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import lstm as L
from .function_kinds import _fused, function_kind


@function_kind("lstm", L.Lstm)
def _lstm(p: Mapping[str, object]) -> Dict[str, object]:
    return {**_fused(p), "cell_clip": p["cell_clip"], "projection_clip": p["projection_clip"]}


__all__: list = []
