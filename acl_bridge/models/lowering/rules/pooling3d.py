"""3-D pooling: TFLite's custom operators ``CUSTOM:AveragePool3D`` and ``CUSTOM:MaxPool3D``
(their options: :mod:`...format.pool3d_options`) -> ``pooling_3d``
(:mod:`acl_bridge.families.pooling3d`, ACL's Pooling3dLayer; ACL 20.08 has none: refused at
configure, so the partitioned runner falls back)."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from ...format.pool3d_options import NO_ACTIVATION, POOL_3D, pool3d_geometry, pool3d_options
from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import first_input, malformed, refuse, unary
from ..quantized import is_quantized, one_quantization
from ..step import Lowered, Params
from .table import FLOAT32_OR_INT8, rule


@rule(*POOL_3D, tensors=FLOAT32_OR_INT8)
def pool_3d(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``pooling_3d`` on NDHWC (rank 5) tensors: average over the elements inside the input
    (TFLite's count: ACL's exclude_padding), max; TFLite's SAME / VALID padding per axis.
    float32, or int8 with one scale and zero point in and out (TFLite's requirement; TFLite's
    kernel has no uint8). An ``activation`` in the options is refused: TFLite's kernel ignores
    it, Arm NN's delegate applies it."""
    o = pool3d_options(op)
    if o.activation not in NO_ACTIVATION:
        raise refuse(op, f"custom option activation={o.activation!r} (TFLite's kernel applies none, Arm NN's "
                         f"delegate applies it)")
    src, out = first_input(op), op.outputs[0]
    x, y = tuple(model.tensors[src].shape), tuple(model.tensors[out].shape)
    if len(x) != 5 or len(y) != 5:
        raise refuse(op, f"input {list(x)} -> output {list(y)} (rank 5, NDHWC, only)")
    want, pads = pool3d_geometry(x, o)
    if y != want:
        raise malformed(op, f"output is {list(y)}, {o.padding} pooling of {list(x)} with ksize {list(o.kernel)} and "
                            f"strides {list(o.stride)} gives {list(want)}")
    params: Params = (("pool_type", o.pool_type), ("kernel", o.kernel), ("stride", o.stride), ("padding", pads))
    if is_quantized(model, src):
        if model.tensors[src].dtype != np.int8:
            raise refuse(op, f"{model.tensors[src].dtype} tensors (TFLite's 3-D pooling takes float32, int8, int16)")
        params += one_quantization(op, model, src, out)
    return (unary(op, "pooling_3d", params),)


__all__ = ["pool_3d"]
