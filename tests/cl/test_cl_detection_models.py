"""TFLite_Detection_PostProcess with the CL backend (tests/models/test_detection_acl.py): ACL
has no CL detection post-process, so the runner takes ACL's refusal and runs the operator on
the CPU fallback; the outputs against the numpy plan."""

from __future__ import annotations

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers.flexbuffers", reason="the flatbuffers package is not installed")

from models.test_detection_acl import check  # noqa: E402

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("name", ["fast-1class", "uint8-regular"])
def test_cl_detection_post_process_falls_back_to_the_cpu(name):
    check(name, "cl")
