"""One-operator ``TFLite_Detection_PostProcess`` models written with the ``tflite`` package's
builders (:func:`graph_model`), their flexbuffer options (the ``flatbuffers`` package's
flexbuffers builder), and small SSD-like inputs: anchors on a grid, box codes and scores from
a seeded generator with distinct scores (TFLite's partial sorts leave ties unordered)."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import numpy as np

from .graph_tflite import graph_model

OPCODE = "CUSTOM:TFLite_Detection_PostProcess"
SCALES = dict(y_scale=10.0, x_scale=10.0, h_scale=5.0, w_scale=5.0)


def options(max_detections=4, max_classes_per_detection=1, num_classes=3, nms_score_threshold=0.3,
            nms_iou_threshold=0.5, use_regular_nms: Optional[bool] = None, detections_per_class: Optional[int] = None,
            **scales) -> bytes:
    """The custom_options flexbuffer map, as TensorFlow's export writes it (absent keys left out)."""
    from flatbuffers import flexbuffers

    b = flexbuffers.Builder()
    with b.Map():
        b.Int("max_detections", max_detections)
        b.Int("max_classes_per_detection", max_classes_per_detection)
        b.Int("num_classes", num_classes)
        b.Float("nms_score_threshold", nms_score_threshold)
        b.Float("nms_iou_threshold", nms_iou_threshold)
        for k, v in dict(SCALES, **scales).items():
            b.Float(k, v)
        if use_regular_nms is not None:
            b.Bool("use_regular_nms", use_regular_nms)
        if detections_per_class is not None:
            b.Int("detections_per_class", detections_per_class)
    return bytes(b.Finish())


def anchors(n: int) -> np.ndarray:
    """(n, 4) anchors (y, x, h, w) on a grid in [0, 1], overlapping neighbours."""
    side = int(np.ceil(np.sqrt(n)))
    k = np.arange(n)
    y, x = (k // side + 0.5) / side, (k % side + 0.5) / side
    return np.stack([y, x, np.full(n, 1.6 / side), np.full(n, 1.2 / side)], 1).astype(np.float32)


def inputs(n: int, classes: int, seed: int = 0, background: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """(box codes (1, n, 4), class scores (1, n, classes [+ 1])), distinct scores in (0, 1)."""
    rng = np.random.default_rng(seed)
    codes = rng.normal(0.0, 1.0, (1, n, 4)).astype(np.float32)
    cols = classes + int(background)
    scores = (rng.permutation(n * cols).reshape(1, n, cols) + 0.5) / (n * cols)
    return codes, scores.astype(np.float32)


def model(n: int, classes: int, opts: bytes, m: int, background: bool = True,
          quantization: Optional[Dict[str, tuple]] = None, dtype: str = "float32",
          dequantize_first: bool = False) -> bytes:
    """A model: live inputs ``boxes`` (1, n, 4) and ``scores``, the anchors a constant, the four
    outputs (1, m, 4), (1, m), (1, m), (1,) float32; ``dtype`` uint8 (or int8) with ``quantization``
    {name: (scales, zero points)} for the inputs. ``dequantize_first``: the three quantized
    tensors go through DEQUANTIZE operators into a float32 detection operator (the converter's
    form of a quantized SSD, which TFLite's interpreter runs where its kernel refuses int8)."""
    q = quantization or {}
    a = anchors(n)
    if dtype in ("uint8", "int8"):
        scale, zero = q["anchors"]
        info = np.iinfo(dtype)
        a = np.clip(np.round(a / scale[0]) + zero[0], info.min, info.max).astype(dtype)
    cols = classes + int(background)
    t = [("boxes", (1, n, 4), dtype, None, q.get("boxes")), ("scores", (1, n, cols), dtype, None, q.get("scores")),
         ("anchors", (n, 4), dtype, a, q.get("anchors")),
         ("det_boxes", (1, m, 4), "float32", None, None), ("det_classes", (1, m), "float32", None, None),
         ("det_scores", (1, m), "float32", None, None), ("num", (1,), "float32", None, None)]
    ins, ops = ["boxes", "scores", "anchors"], []
    if dequantize_first:
        t += [(f"{k}_float", shape, "float32", None, None) for k, shape, *_ in t[:3]]
        ops = [("DEQUANTIZE", [k], [f"{k}_float"], None) for k in ins]
        ins = [f"{k}_float" for k in ins]
    ops.append((OPCODE, ins, ["det_boxes", "det_classes", "det_scores", "num"], ("custom", opts)))
    return graph_model(t, ops, ["boxes", "scores"], ["det_boxes", "det_classes", "det_scores", "num"])
