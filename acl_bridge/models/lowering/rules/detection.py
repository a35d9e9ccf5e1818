"""SSD models' detection post-processing: the custom operator ``TFLite_Detection_PostProcess``
(-> ``detection_post_process``, :mod:`acl_bridge.families.detection`), its options read from
its flexbuffer custom_options (:mod:`...format.detection_options`). float32, or uint8 / int8
inputs (ACL's QASYMM8 / QASYMM8_SIGNED: it dequantizes them as (q - zero point) x scale, as
TFLite's DEQUANTIZE does int8; TFLite's own kernel refuses int8) with float32 outputs. Refused
where ACL's function differs from TFLite's kernel, so the fallback runs it: class scores
without a background column (ACL's function takes num_classes + 1 columns), the fast NMS with
more than one class per detection, score thresholds outside [0, 1] (ACL's NMS refuses them),
box codes longer than 4 (keypoints); mixed input types. Where ACL's validate() refuses a type
the runner falls back naming its message. ACL has no CL function: on the CL backend the
runner falls back."""

from __future__ import annotations

from typing import Tuple

import numpy as np

from ...format.detection_options import OPCODE, check_shapes, detection_options
from ...format.tflite_reader import ModelSpec, OperatorSpec
from ..helpers import malformed, refuse
from ..quantized import all_float32, quantization, tensor_q
from ..step import Lowered, Params, Step
from .table import rule

ROLES = ("box_encodings", "class_scores", "anchors")


def _types(op: OperatorSpec, model: ModelSpec) -> None:
    """The type gate: the four outputs float32; the three inputs float32, or all uint8 or all
    int8 with one scale and zero point each (ACL's QASYMM8 / QASYMM8_SIGNED); mixed types are
    refused naming them."""
    for i in op.outputs:
        if i >= 0 and model.tensors[i].dtype != np.float32:
            raise refuse(op, f"output tensor #{i} {model.tensors[i].name!r} of type {model.tensors[i].dtype} "
                             f"(float32 only)")
    all_float32(op, [model.tensors[i] for i in op.inputs if i >= 0])


@rule(OPCODE, tensors=_types)
def detection_post_process(op: OperatorSpec, model: ModelSpec) -> Tuple[Lowered, ...]:
    """-> ``detection_post_process`` writing the operator's four outputs (its ``outputs``
    parameter); constant anchors a step constant (as stored: uint8 / int8 stay so); quantized
    inputs carry their (scale, zero point) per role in the ``quantization`` parameter."""
    opts = detection_options(op)
    why = check_shapes(op, model, opts)
    if why is not None:
        raise malformed(op, why)
    box, scores, anchors = op.inputs
    t = model.tensors
    if t[scores].shape[2] != opts.num_classes + 1:
        raise refuse(op, f"class scores {list(t[scores].shape)} without a background column (ACL's detection "
                         f"post-process takes num_classes + 1 = {opts.num_classes + 1})")
    if not opts.use_regular_nms and opts.max_classes_per_detection != 1:
        raise refuse(op, f"the fast NMS with max_classes_per_detection {opts.max_classes_per_detection} (ACL's keeps "
                         f"one class per box)")
    if not 0.0 <= opts.nms_score_threshold <= 1.0:
        raise refuse(op, f"nms_score_threshold {opts.nms_score_threshold} (ACL's NMS takes [0, 1])")
    if t[box].shape[2] != 4:
        raise refuse(op, f"box encodings {list(t[box].shape)} with more than 4 values per box (ACL decodes 4)")
    f32 = lambda v: float(np.float32(v))  # noqa: E731  (TFLite reads the options as float)
    params: Params = (
        ("max_detections", opts.max_detections), ("num_classes", opts.num_classes),
        ("max_classes_per_detection", opts.max_classes_per_detection),
        ("detections_per_class", opts.detections_per_class), ("use_regular_nms", opts.use_regular_nms),
        ("nms_score_threshold", f32(opts.nms_score_threshold)), ("nms_iou_threshold", f32(opts.nms_iou_threshold)),
        ("scales", tuple(f32(v) for v in (opts.y_scale, opts.x_scale, opts.h_scale, opts.w_scale))),
        ("outputs", tuple(op.outputs)))
    stored = t[box].dtype
    if stored != np.float32:
        params += quantization(*((role, tensor_q(op, model, i)) for role, i in zip(ROLES, op.inputs)))
    if t[anchors].data is not None:
        return (Step(op.index, op.opcode, "detection_post_process", (box, scores), op.outputs[0], params,
                     (("anchors", np.ascontiguousarray(t[anchors].data, stored).reshape(t[anchors].shape)),)),)
    return (Step(op.index, op.opcode, "detection_post_process", (box, scores, anchors), op.outputs[0], params),)


__all__ = ["detection_post_process"]
