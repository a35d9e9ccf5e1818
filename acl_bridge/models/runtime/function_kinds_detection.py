"""The step kind of the detection post-process (:mod:`acl_bridge.families.detection`),
registered in :mod:`.function_kinds`' table by its one import line."""

from __future__ import annotations

from typing import Dict, Mapping

from ...families import detection as D
from .function_kinds import function_kind

OPTIONS = ("max_detections", "num_classes", "max_classes_per_detection", "detections_per_class", "use_regular_nms",
           "nms_score_threshold", "nms_iou_threshold", "scales")


@function_kind("detection_post_process", D.DetectionPostProcess)
def _detection_post_process(p: Mapping[str, object]) -> Dict[str, object]:
    return {k: p[k] for k in OPTIONS}


__all__: list = []
