"""``TFLite_Detection_PostProcess`` (SSD models' detection post-processing custom operator)
on numpy, as TFLite's kernel computes it (tensorflow/lite/kernels/detection_postprocess.cc).

Inputs: box encodings (1, N, >= 4) as (y, x, h, w) centre-size codes, class scores (1, N,
num_classes [+ 1 background column first]), anchors (N, 4) as (y, x, h, w); float32, or uint8
or int8 dequantized first (:func:`dequantized`: uint8 as TFLite's kernel, whose class scores
may sit one float32 step from ACL's where the zero point is not 0; int8, which TFLite's
kernel refuses at invoke, as TFLite's DEQUANTIZE operator and ACL do). Outputs (float32):
boxes (1, M, 4) as (ymin, xmin, ymax, xmax), classes (1, M), scores (1, M), num_detections
(1,), M = max_detections x max_classes_per_detection.

Decoding (in double, as TFLite): y = y_code / y_scale * anchor_h + anchor_y, likewise x;
half_h = 0.5 * exp(h_code / h_scale) * anchor_h, likewise w. Non-maximum suppression on one
score column: the boxes scoring >= nms_score_threshold, in decreasing score order (ties: the
lower index first, TFLite's stable sort), each kept unless its IoU with a kept one is
> nms_iou_threshold, at most the given count. Fast NMS: each anchor's best class score
drives one NMS of max_detections; every kept anchor gives its max_classes_per_detection best
classes, one row each. Regular NMS: one NMS of detections_per_class per class, then the
max_detections best of all of them. Rows past the detections are zero here (TFLite leaves the
fast NMS's unwritten; the regular NMS zeroes them up to max_detections, as ACL does).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from ..format.detection_options import OPCODE, DetectionOptions, check_shapes, detection_options
from ..format.tflite_reader import ModelFormatError, ModelSpec, OperatorSpec, UnsupportedModelError
from .registry import Call, kernel
from .step_kernels import step_kernel

F32 = np.float32
ROLES = ("box_encodings", "class_scores", "anchors")


def _check(op: OperatorSpec, model: ModelSpec) -> Optional[str]:
    try:
        opts = detection_options(op)
    except ModelFormatError as e:
        return str(e)
    return check_shapes(op, model, opts)


def dequantized(v: np.ndarray, q: Optional[Tuple[float, int]], vectorised: bool = False) -> np.ndarray:
    """``v`` as float32: uint8 or int8 with ``q`` (scale, zero point) as (v - zero point) *
    scale in float32 (ACL's dequantization of every input; TFLite's of uint8 box codes and
    anchors, and its DEQUANTIZE operator's of int8: TFLite's detection kernel itself refuses
    int8), or with ``vectorised`` as TFLite dequantizes uint8 class scores (its optimized
    Dequantize over the flattened tensor; int8 as without: v * scale - zero point * scale, each product rounded
    to float32, in blocks of 8; the last size % 8 values (v - zero point) * scale); float32 as
    it is."""
    v = np.asarray(v)
    if v.dtype in (np.uint8, np.int8):
        scale, zero = F32(q[0]), F32(q[1])
        out = (v.astype(F32) - zero) * scale
        if vectorised and v.dtype == np.uint8:
            flat, blocks = out.reshape(-1), v.size - v.size % 8
            flat[:blocks] = v.reshape(-1)[:blocks].astype(F32) * scale - zero * scale
        return out
    return v.astype(F32, copy=False)


def decode(codes: np.ndarray, anchors: np.ndarray, opts: DetectionOptions) -> np.ndarray:
    """(N, 4) boxes (ymin, xmin, ymax, xmax) from (N, >= 4) centre-size codes and (N, 4) anchors."""
    c, a = codes[:, :4].astype(np.float64), anchors.astype(np.float64)
    scale = np.array([opts.y_scale, opts.x_scale, opts.h_scale, opts.w_scale], F32).astype(np.float64)
    yc = (c[:, 0] / scale[0] * a[:, 2] + a[:, 0]).astype(F32)
    xc = (c[:, 1] / scale[1] * a[:, 3] + a[:, 1]).astype(F32)
    half_h = (0.5 * np.exp(c[:, 2] / scale[2]) * a[:, 2]).astype(F32)
    half_w = (0.5 * np.exp(c[:, 3] / scale[3]) * a[:, 3]).astype(F32)
    return np.stack([yc - half_h, xc - half_w, yc + half_h, xc + half_w], axis=1)


def _iou(boxes: np.ndarray, i: int, js: np.ndarray) -> np.ndarray:
    """IoU of box ``i`` with boxes ``js`` in float32 (0 where an area is <= 0), as TFLite."""
    b, o = boxes[i], boxes[js]
    area_i = (b[2] - b[0]) * (b[3] - b[1])
    area_j = (o[:, 2] - o[:, 0]) * (o[:, 3] - o[:, 1])
    h = np.maximum(np.minimum(b[2], o[:, 2]) - np.maximum(b[0], o[:, 0]), F32(0))
    w = np.maximum(np.minimum(b[3], o[:, 3]) - np.maximum(b[1], o[:, 1]), F32(0))
    inter = h * w
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / (area_i + area_j - inter)
    return np.where((area_i <= 0) | (area_j <= 0), F32(0), iou)


def nms(boxes: np.ndarray, scores: np.ndarray, most: int, opts: DetectionOptions) -> List[int]:
    """Indices of the boxes one NMS keeps, best first (at most ``most``)."""
    keep = np.flatnonzero(scores >= F32(opts.nms_score_threshold))
    order = keep[np.argsort(-scores[keep], kind="stable")]
    active = np.ones(len(order), bool)
    selected: List[int] = []
    iou_threshold = F32(opts.nms_iou_threshold)
    for k in range(len(order)):
        if len(selected) >= min(most, len(order)):
            break
        if not active[k]:
            continue
        selected.append(int(order[k]))
        active[k] = False
        rest = np.flatnonzero(active[k + 1:]) + k + 1
        if len(rest):
            active[rest[_iou(boxes, int(order[k]), order[rest]) > iou_threshold]] = False
    return selected


def _fast(boxes, scores, opts: DetectionOptions) -> Tuple[List[int], List[int], List[float], int]:
    """(anchor, class, score) per output row and the detection count of the fast NMS."""
    per_box = min(opts.max_classes_per_detection, opts.num_classes)
    classes = np.argsort(-scores, axis=1, kind="stable")[:, :per_box]
    classes[:, 0] = np.argmax(scores, axis=1)  # TFLite's ArgMaxVector for the best: the first maximum
    best = scores[np.arange(len(scores)), classes[:, 0]]
    rows_a, rows_c, rows_s = [], [], []
    selected = nms(boxes, best, opts.max_detections, opts)
    for k, anchor in enumerate(selected):
        for col in range(per_box):
            row = opts.max_classes_per_detection * k + col
            while len(rows_a) < row:  # the rows a box with fewer classes leaves unwritten
                rows_a.append(-1), rows_c.append(0), rows_s.append(0.0)
            rows_a.append(anchor), rows_c.append(int(classes[anchor, col])), rows_s.append(float(scores[anchor, classes[anchor, col]]))
    return rows_a, rows_c, rows_s, len(selected)


def _regular(boxes, scores, opts: DetectionOptions) -> Tuple[List[int], List[int], List[float], int]:
    """(anchor, class, score) per output row and the detection count of the regular NMS."""
    kept: List[Tuple[float, int, int]] = []  # (score, anchor, class), best first
    for col in range(opts.num_classes):
        column = scores[:, col]
        new = [(float(column[i]), i, col) for i in nms(boxes, column, opts.detections_per_class, opts)]
        merged = kept + new
        order = sorted(range(len(merged)), key=lambda j: -merged[j][0])  # stable: earlier first on ties
        kept = [merged[j] for j in order[:opts.max_detections]]
    return [a for _, a, _ in kept], [c for _, _, c in kept], [s for s, _, _ in kept], len(kept)


def post_process(codes: np.ndarray, scores: np.ndarray, anchors: np.ndarray, opts: DetectionOptions
                 ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(boxes (1, M, 4), classes (1, M), scores (1, M), num_detections (1,)), float32, from
    float32 codes (1, N, >= 4), scores (1, N, C) and anchors (N, 4); unwritten rows zero.
    UnsupportedModelError where a decoded box has ymin > ymax or xmin > xmax (TFLite refuses)."""
    boxes = decode(codes[0], anchors, opts)
    if np.any(boxes[:, 0] > boxes[:, 2]) or np.any(boxes[:, 1] > boxes[:, 3]):
        raise UnsupportedModelError(f"{OPCODE}: a decoded box has ymin > ymax or xmin > xmax "
                                    f"(negative anchor heights or widths), which TFLite's kernel refuses")
    s = scores[0]
    s = s[:, s.shape[1] - opts.num_classes:]  # without the background column
    rows_a, rows_c, rows_s, count = (_regular if opts.use_regular_nms else _fast)(boxes, s, opts)
    m = opts.detected_boxes
    out_boxes, out_classes, out_scores = np.zeros((1, m, 4), F32), np.zeros((1, m), F32), np.zeros((1, m), F32)
    for row, (a, c, v) in enumerate(zip(rows_a, rows_c, rows_s)):
        if a >= 0:
            out_boxes[0, row], out_classes[0, row], out_scores[0, row] = boxes[a], c, v
    return out_boxes, out_classes, out_scores, np.array([count], F32)


def _step(s, p, c, arrays, q) -> None:
    """The plan's ``detection_post_process`` step (what ACL's function computes under the
    lowering rule's conditions): its four outputs written; quantized inputs dequantized by ``q``
    (role -> (scale, zero point)) first, as ACL does: (q - zero point) x scale."""
    live = iter(arrays[i] for i in s.inputs)
    values = [np.asarray(c[r] if r in c else next(live)) for r in ROLES]
    codes, scores, anchors = (dequantized(v, q.get(r)) for r, v in zip(ROLES, values))
    y, xs, h, w = p["scales"]
    opts = DetectionOptions(p["max_detections"], p["max_classes_per_detection"], p["detections_per_class"],
                            p["use_regular_nms"], p["nms_score_threshold"], p["nms_iou_threshold"], p["num_classes"],
                            y, xs, h, w)
    for out, t in zip(post_process(codes, scores, anchors, opts), s.written):
        arrays[t][...] = out


@step_kernel("detection_post_process")
def _detection_step(s, x, p, c, arrays) -> None:
    _step(s, p, c, arrays, {})


@step_kernel("detection_post_process", quantized=True)
def _detection_step_q(s, x, p, c, q, dst, arrays) -> None:
    _step(s, p, c, arrays, q)


@kernel(OPCODE, dtypes=("float32", "uint8", "int8"), check=_check, binds=True)
def detection_post_process(c: Call):
    opts = detection_options(c.op)

    def run() -> None:
        ins = [np.asarray(c.inputs[k]) for k in range(3)]
        qs = [c.q_in(k) if v.dtype in (np.uint8, np.int8) else None for k, v in enumerate(ins)]
        outs = post_process(*map(dequantized, ins, qs, (False, True, False)), opts)
        for k, y in enumerate(outs):
            c.write(y, k)

    return run


__all__ = ["dequantized", "decode", "nms", "post_process", "detection_post_process"]
