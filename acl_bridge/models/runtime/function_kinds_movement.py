"""The data-movement family's step kinds (:mod:`acl_bridge.families.movement`), registered
with :func:`.function_kinds.function_kind`: each step's parameters are its function's options
already (numpy order, resolved by the rule), so the options pass them through."""

from __future__ import annotations

from typing import Dict, Mapping

from ... import functions as F
from ...families import movement as M
from .function_kinds import function_kind

# step kind -> the parameters its function takes as options (the rest: quantization, in_place...)
OPTIONS = {
    "strided_slice": ("begin", "end", "strides", "shrink_axis_mask"),
    "gather": ("axis",),
    "tile": ("multiples",),
    "depth_to_space": ("block_size",),
    "space_to_depth": ("block_size",),
    "batch_to_space": ("block_shape", "crops"),
    "space_to_batch": ("block_shape", "paddings"),
}


def _passed(names):
    def options(p: Mapping[str, object]) -> Dict[str, object]:
        return {n: p[n] for n in names if n in p}
    return options


for _cls in M.CLASSES:
    function_kind(_cls.kind, _cls)(_passed(OPTIONS[_cls.kind]))
# CAST: ACL's depth conversion (saturating); FILL: NEFill of the value
function_kind("cast", F.Cast)(_passed(()))
function_kind("fill", F.Fill)(_passed(("value",)))

__all__ = ["OPTIONS"]
