"""The conversion room's step kinds (:mod:`acl_bridge.families.conversion`): quantize (a
requantizing quantize places into a concatenation's slice: int8 inputs whose scales differ from
the output's) and dequantize; no options."""

from __future__ import annotations

from ...families import conversion as C
from .function_kinds import _none, function_kind

function_kind("quantize", C.Quantize, places=lambda p: "into" in p)(_none)
function_kind("dequantize", C.Dequantize)(_none)

__all__: list = []
