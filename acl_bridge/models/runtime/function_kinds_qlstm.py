"""The step kind of the quantized LSTM family (:mod:`acl_bridge.families.qlstm`), registered
in :mod:`.function_kinds`' table by its name. Like ``lstm``, a step's ``absent`` parameter
(the roles it leaves out) is read by :mod:`.step_calls`, not passed to the function."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import qlstm as Q
from .function_kinds import function_kind


@function_kind("qlstm", Q.QLstm)
def _qlstm(p: Mapping[str, object]) -> Dict[str, object]:
    return {"matmul_scales": tuple(p["matmul_scales"]), "hidden_scale": p["hidden_scale"],
            "hidden_zero_point": p["hidden_zero_point"]}


__all__: list = []
