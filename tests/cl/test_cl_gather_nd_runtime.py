"""GATHER_ND with runtime indices on ACL's CL backend (tests/models/test_gather_nd_runtime_acl.py):
the shim maps the indices for its CPU check, CLGather moves the rows; bit for bit with the
numpy plan, and a bad index row stops the run with the output unchanged."""

from __future__ import annotations

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from models.test_gather_nd_runtime_acl import ROWS, check_bad_rows, check_runtime  # noqa: E402

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("case", ROWS, ids=[c.id for c in ROWS])
def test_cl_runtime_gather_nd_matches_the_plan(case):
    check_runtime(case, "cl")


def test_cl_bad_index_row_writes_nothing():
    check_bad_rows("cl")
