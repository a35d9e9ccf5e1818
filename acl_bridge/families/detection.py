"""The detection post-process family (native/acl_shim_detection.cpp): DetectionPostProcess,
ACL's DetectionPostProcessLayer (TFLite's ``TFLite_Detection_PostProcess``, SSD models' last
operator): box codes decoded against anchors, non-maximum suppression, the best boxes with
their classes and scores. NEON only, in ACL 20.08 and 24.11 alike: ACL has no CL function
(``backend="cl"`` is refused at construction, AclUnsupportedError).

Inputs float32, or uint8 / int8 (quantized: ACL dequantizes them); outputs float32."""

from __future__ import annotations

import math
import numbers
from typing import Sequence, Tuple

import numpy as np

from ndarray.errors import InvalidLayoutError, UnsupportedOptionError

from .. import functions
from ..functions import AclFunction
from ..layout import check_int


def _real(v: object) -> bool:
    """A real number (numpy's included), not a bool."""
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))


class DetectionPostProcess(AclFunction):
    """SSD detection post-processing. ``box_encodings`` (1, N, 4) centre-size codes (y, x, h,
    w), ``class_scores`` (1, N, num_classes + 1) with the background column first,
    ``anchors`` (N, 4) (y, x, h, w); outputs ``boxes`` (1, M, 4) (ymin, xmin, ymax, xmax),
    ``classes`` (1, M), ``scores`` (1, M), ``num_detections`` (1,), M = max_detections x
    max_classes_per_detection. Boxes: y = y_code / y_scale * anchor_h + anchor_y (x alike),
    h = exp(h_code / h_scale) * anchor_h (w alike). ``use_regular_nms``: NMS per class
    (``detections_per_class`` each), else one NMS over each box's best class score (then
    ``max_classes_per_detection`` must be 1: ACL's fast NMS takes one). Scores below
    ``nms_score_threshold`` (in [0, 1]) are dropped; a box overlapping a kept one with an IoU
    above ``nms_iou_threshold`` (in (0, 1]) is dropped. Rows past num_detections are zero up
    to max_detections. ``scales``: (y, x, h, w)."""

    kind = "detection_post_process"
    roles = ("box_encodings", "class_scores", "anchors", "boxes", "classes", "scores", "num_detections")
    outputs = ("boxes", "classes", "scores", "num_detections")
    const_roles = ("box_encodings", "class_scores", "anchors")

    @classmethod
    def _params(cls, max_detections: int, num_classes: int, max_classes_per_detection: int = 1,
                detections_per_class: int = 100, use_regular_nms: bool = False, nms_score_threshold: float = 0.0,
                nms_iou_threshold: float = 0.5, scales: Sequence[float] = (10.0, 10.0, 5.0, 5.0)):
        p = functions.default_params()
        p.max_detections = check_int(max_detections, "max_detections", minimum=1)
        p.num_classes = check_int(num_classes, "num_classes", minimum=1)
        p.max_classes_per_detection = check_int(max_classes_per_detection, "max_classes_per_detection", minimum=1)
        p.detections_per_class = check_int(detections_per_class, "detections_per_class", minimum=1)
        if not isinstance(use_regular_nms, bool):
            raise UnsupportedOptionError(f"DetectionPostProcess: use_regular_nms is {use_regular_nms!r}, expected a bool")
        if not use_regular_nms and p.max_classes_per_detection != 1:
            raise UnsupportedOptionError(
                f"DetectionPostProcess: max_classes_per_detection is {max_classes_per_detection} with the fast NMS, "
                f"expected 1 (ACL's fast NMS keeps one class per box; use_regular_nms=True takes more)")
        p.use_regular_nms = int(use_regular_nms)
        if not (_real(nms_score_threshold) and 0.0 <= nms_score_threshold <= 1.0):
            raise UnsupportedOptionError(f"DetectionPostProcess: nms_score_threshold is {nms_score_threshold!r}, "
                                         f"expected a number in [0, 1] (ACL's NMS takes no other)")
        if not (_real(nms_iou_threshold) and 0.0 < nms_iou_threshold <= 1.0):
            raise UnsupportedOptionError(f"DetectionPostProcess: nms_iou_threshold is {nms_iou_threshold!r}, "
                                         f"expected a number in (0, 1]")
        p.nms_score_threshold, p.nms_iou_threshold = float(nms_score_threshold), float(nms_iou_threshold)
        scales = tuple(scales)
        if len(scales) != 4 or not all(_real(s) and math.isfinite(s) and s != 0 for s in scales):
            raise UnsupportedOptionError(f"DetectionPostProcess: scales is {scales!r}, expected four finite non-zero "
                                         f"numbers (y, x, h, w)")
        for k, s in enumerate(scales):
            p.box_scales[k] = float(s)
        return p

    @classmethod
    def _call(cls, args: Sequence, options: dict, quantization) -> tuple:
        """The shapes checked here (ACL's validate() leaves the anchors' width unchecked and its
        decoding would read past them)."""
        arrays, kind, params, quant = super()._call(args, options, quantization)
        shapes = {role: tuple(functions._spec_of(a, role)[0]) for role, a in zip(cls.roles, arrays)}
        if len(shapes["box_encodings"]) != 3:
            raise InvalidLayoutError(f"DetectionPostProcess: box_encodings has shape {shapes['box_encodings']}, "
                                     f"expected (1, N, 4) for N anchors")
        n = shapes["box_encodings"][1]
        m = params.max_detections * params.max_classes_per_detection
        want = {"box_encodings": (1, n, 4), "class_scores": (1, n, params.num_classes + 1), "anchors": (n, 4),
                "boxes": (1, m, 4), "classes": (1, m), "scores": (1, m), "num_detections": (1,)}
        for role in cls.roles:
            if shapes[role] != want[role]:
                raise InvalidLayoutError(
                    f"DetectionPostProcess: {role} has shape {shapes[role]}, expected {want[role]} (N = "
                    f"{n} anchors from box_encodings (1, N, 4), num_classes {params.num_classes} + a background "
                    f"column, M = max_detections x max_classes_per_detection = {m})")
        return arrays, kind, params, quant


CLASSES: Tuple[type, ...] = (DetectionPostProcess,)

__all__ = ["DetectionPostProcess", "CLASSES"]
