"""The logic family's one-operator models (tests/models/test_logic_acl.py: comparisons, logical
operators, arg max / min, select) on ACL's CL backend: every operator on ACL, exactly the
numpy plan's output."""

from __future__ import annotations

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from models.test_logic_acl import ON_ACL, check  # noqa: E402

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("case", ON_ACL, ids=[c.id for c in ON_ACL])
def test_cl_logic_operator_matches_the_plan(case):
    check(case, "cl")
