"""The options of TFLite's ``TFLite_Detection_PostProcess`` custom operator (SSD models'
detection post-processing): its ``custom_options`` are a flexbuffer map (read with the
``flatbuffers`` package's :mod:`flatbuffers.flexbuffers`), the fields TFLite's kernel reads
(tensorflow/lite/kernels/detection_postprocess.cc, ``Init``): max_detections,
max_classes_per_detection, detections_per_class (100 where absent), use_regular_nms (false
where absent), nms_score_threshold, nms_iou_threshold, num_classes, y_scale, x_scale, h_scale,
w_scale. :func:`detection_options` answers them as one frozen value, or ModelFormatError
naming the field, its value and what was expected; :func:`check_shapes` says why the
operator's tensors do not fit TFLite's kernel."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, Optional

from .tflite_reader import ModelFormatError, ModelSpec, OperatorSpec

OPCODE = "CUSTOM:TFLite_Detection_PostProcess"
DETECTIONS_PER_CLASS = 100  # TFLite's kNumDetectionsPerClass, where the map has none


@dataclass(frozen=True)
class DetectionOptions:
    """TFLite_Detection_PostProcess's options (TFLite's names; ``use_regular_nms``: the
    per-class NMS, else the fast one over each anchor's best classes)."""

    max_detections: int
    max_classes_per_detection: int
    detections_per_class: int
    use_regular_nms: bool
    nms_score_threshold: float
    nms_iou_threshold: float
    num_classes: int
    y_scale: float
    x_scale: float
    h_scale: float
    w_scale: float

    @property
    def detected_boxes(self) -> int:
        """Rows of the boxes / classes / scores outputs: max_detections x max_classes_per_detection."""
        return self.max_detections * self.max_classes_per_detection


def custom_map(op: OperatorSpec) -> Dict[str, object]:
    """``op``'s custom_options read as a flexbuffer map ({key: Python value});
    ModelFormatError where they are absent or not a map."""
    from flatbuffers import flexbuffers

    raw = bytes.fromhex(op.option("custom_options", "") or "")
    where = f"operator #{op.index} {op.opcode}"
    if not raw:
        raise ModelFormatError(f"{where}: custom_options are empty, expected a flexbuffer map")
    try:
        root = flexbuffers.GetRoot(bytearray(raw))
        if not root.IsMap:
            raise ValueError("its root is not a map")
        value = root.Value
    except (ValueError, IndexError, KeyError, TypeError, UnicodeDecodeError) as e:
        raise ModelFormatError(f"{where}: custom_options ({len(raw)} bytes) are not a flexbuffer map: {e}") from None
    return dict(value)


def detection_options(op: OperatorSpec) -> DetectionOptions:
    """The options of one TFLite_Detection_PostProcess operator, checked as TFLite's kernel
    needs them (counts >= 1, thresholds and scales finite, the IoU threshold in (0, 1])."""
    m = custom_map(op)
    where = f"operator #{op.index} {op.opcode}"

    def number(key: str, kind: type, default=None):
        v = m.get(key, default)
        if v is None:
            raise ModelFormatError(f"{where}: custom option {key!r} is missing (TFLite's kernel reads it)")
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ModelFormatError(f"{where}: custom option {key!r} is {v!r}, expected a number")
        if kind is int:
            if float(v) != int(v):
                raise ModelFormatError(f"{where}: custom option {key!r} is {v!r}, expected an integer")
            return int(v)
        if not math.isfinite(float(v)):
            raise ModelFormatError(f"{where}: custom option {key!r} is {v!r}, expected a finite number")
        return float(v)

    regular = m.get("use_regular_nms", False)
    if not isinstance(regular, (bool, int)):
        raise ModelFormatError(f"{where}: custom option 'use_regular_nms' is {regular!r}, expected a bool")
    opts = DetectionOptions(
        max_detections=number("max_detections", int), max_classes_per_detection=number("max_classes_per_detection", int),
        detections_per_class=number("detections_per_class", int, DETECTIONS_PER_CLASS), use_regular_nms=bool(regular),
        nms_score_threshold=number("nms_score_threshold", float), nms_iou_threshold=number("nms_iou_threshold", float),
        num_classes=number("num_classes", int), y_scale=number("y_scale", float), x_scale=number("x_scale", float),
        h_scale=number("h_scale", float), w_scale=number("w_scale", float))
    for key in ("max_detections", "max_classes_per_detection", "detections_per_class", "num_classes"):
        if getattr(opts, key) < 1:
            raise ModelFormatError(f"{where}: custom option {key!r} is {getattr(opts, key)}, expected >= 1")
    if not 0.0 < opts.nms_iou_threshold <= 1.0:
        raise ModelFormatError(f"{where}: custom option 'nms_iou_threshold' is {opts.nms_iou_threshold}, "
                               f"expected a value in (0, 1]")
    for key in ("y_scale", "x_scale", "h_scale", "w_scale"):
        if getattr(opts, key) == 0.0:
            raise ModelFormatError(f"{where}: custom option {key!r} is 0, expected a non-zero scale (boxes divide by it)")
    return opts


def check_shapes(op: OperatorSpec, model: ModelSpec, opts: DetectionOptions) -> Optional[str]:
    """Why the operator's tensors do not fit TFLite's kernel (None: they do)."""
    if len(op.inputs) != 3 or len(op.outputs) != 4 or min(op.inputs) < 0:
        return (f"inputs {list(op.inputs)} and outputs {list(op.outputs)}, expected (box encodings, class scores, "
                f"anchors) and (boxes, classes, scores, num_detections)")
    box, score, anchor = (tuple(model.tensors[i].shape) for i in op.inputs)
    if len(box) != 3 or box[0] != 1 or box[2] < 4:
        return f"box encodings {list(box)}, expected [1, anchors, >= 4]"
    n = box[1]
    if len(score) != 3 or score[:2] != (1, n) or score[2] - opts.num_classes not in (0, 1):
        return (f"class scores {list(score)}, expected [1, {n}, {opts.num_classes} or {opts.num_classes + 1}] "
                f"(num_classes {opts.num_classes}, with or without a background column)")
    if anchor != (n, 4):
        return f"anchors {list(anchor)}, expected [{n}, 4]"
    m = opts.detected_boxes
    want = ((1, m, 4), (1, m), (1, m), (1,))
    got = tuple(tuple(model.tensors[i].shape) for i in op.outputs)
    if got != want:
        return f"output shapes {[list(s) for s in got]}, expected {[list(s) for s in want]}"
    return None


__all__ = ["OPCODE", "DETECTIONS_PER_CLASS", "DetectionOptions", "custom_map", "detection_options", "check_shapes"]
