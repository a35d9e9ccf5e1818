"""The one-operator models of the 3-D pools and GATHER_ND (tests/models/test_pool3d_acl.py) on
ACL's CL backend: every operator on ACL (CLPooling3dLayer, CLGather), against the numpy plan
(float within the tolerance, int8 max and GATHER_ND exact, int8 average within one step)."""

from __future__ import annotations

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from models.test_pool3d_acl import GATHER_ROWS, POOL_ROWS, check_gather_nd, check_pool3d  # noqa: E402

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("case", POOL_ROWS, ids=[c.id for c in POOL_ROWS])
def test_cl_pool3d_matches_the_plan(case):
    check_pool3d(case, "cl")


@pytest.mark.parametrize("case", GATHER_ROWS, ids=[c.id for c in GATHER_ROWS])
def test_cl_gather_nd_matches_the_plan(case):
    check_gather_nd(case, "cl")
