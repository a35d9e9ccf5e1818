"""The one-operator models of the neural-network layers (tests/models/test_nn_acl.py:
TRANSPOSE_CONV, L2_POOL_2D, L2_NORMALIZATION, LOCAL_RESPONSE_NORMALIZATION, LOG_SOFTMAX,
RESIZE_NEAREST_NEIGHBOR, BATCH_MATMUL) on ACL's CL backend: every operator on ACL, against the
numpy plan (float within the tolerance, int8 within 2 steps as the other CL int8 models)."""

from __future__ import annotations

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from models.test_elementwise_acl import check_float, check_int8  # noqa: E402
from models.test_nn_acl import FLOAT, INT8, MATMUL  # noqa: E402

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("case", FLOAT + MATMUL, ids=[c.id for c in FLOAT + MATMUL])
def test_cl_float_layer_matches_the_plan(case):
    check_float(case, "cl")


@pytest.mark.parametrize("case", INT8, ids=[c.id for c in INT8])
def test_cl_int8_layer_within_two_steps_of_tflite(case):
    check_int8(case, "cl", 2)
