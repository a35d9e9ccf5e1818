"""The weighted layers' step kinds (:mod:`acl_bridge.families.convolution`): convolution and
depthwise (stride, the plan's window as ACL's padding, a fused activation, the depth
multiplier), fully connected (a fused activation)."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import convolution as C
from .function_kinds import _fused, _window, function_kind


@function_kind("convolution", C.Convolution)
def _convolution(p: Mapping[str, object]) -> Dict[str, object]:
    return {"stride": p["stride"], "padding": _window(p["padding"]), **_fused(p)}  # type: ignore[arg-type]


@function_kind("depthwise", C.DepthwiseConvolution)
def _depthwise(p: Mapping[str, object]) -> Dict[str, object]:
    return dict(_convolution(p), depth_multiplier=p.get("depth_multiplier", 1))


function_kind("fully_connected", C.FullyConnected)(_fused)

__all__: list = []
