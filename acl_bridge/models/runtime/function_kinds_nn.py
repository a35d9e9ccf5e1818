"""The step kinds of the neural-network layers (:mod:`acl_bridge.families.nn`), registered in
:mod:`.function_kinds`' table (which finds this module by its name)."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import nn as N
from .function_kinds import _fused, _window, function_kind


@function_kind("deconvolution", N.Deconvolution)
def _deconvolution(p: Mapping[str, object]) -> Dict[str, object]:
    return {"stride": p["stride"], "padding": _window(p["padding"])}  # type: ignore[arg-type]


@function_kind("l2_normalize", N.L2Normalize)
def _l2_normalize(p: Mapping[str, object]) -> Dict[str, object]:
    return {"axis": p["axis"], "epsilon": p["epsilon"]}


@function_kind("normalization", N.LocalResponseNormalization)
def _normalization(p: Mapping[str, object]) -> Dict[str, object]:
    return {"radius": p["radius"], "bias": p["bias"], "alpha": p["alpha"], "beta": p["beta"]}


@function_kind("matmul", N.MatMul)
def _matmul(p: Mapping[str, object]) -> Dict[str, object]:
    return {"adj_a": p["adj_a"], "adj_b": p["adj_b"]}


@function_kind("convolution_3d", N.Convolution3D)
def _convolution_3d(p: Mapping[str, object]) -> Dict[str, object]:
    return {"stride": p["stride"], "padding": p["padding"], **_fused(p)}


__all__: list = []
