"""The one-operator models of issue 37's rules (tests/models/test_elementwise_acl.py: the
elementwise family, the activations ACL has, TRANSPOSE, the reductions, int8 PAD) on ACL's
CL backend: every operator on ACL, against the numpy plan (float within the tolerance, int8
within the steps printed, at most 2: ACL's CL int8 kernels round some requantizations
differently, tests/cl/test_cl_int8_models.py). PoCL 6.0 cannot build ACL 24.11's activation
kernel for tanh and sqrt (function_cases.POCL_CANNOT_BUILD): there those models fail to load
with that error, the library's own exception."""

from __future__ import annotations

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl.helpers import cl_device  # noqa: E402
from function_cases import POCL_CANNOT_BUILD  # noqa: E402
from models.test_elementwise_acl import FLOAT, INT8, check_float, check_graph, check_int8  # noqa: E402
from models.test_one_operator import MOVEMENT_GRAPHS  # noqa: E402

pytestmark = pytest.mark.cl

POCL_ACTIVATIONS = ("SQRT", "TANH")  # lowered to the activation kernel PoCL cannot build


def _pocl_cannot_build(case) -> bool:
    return case.opcode in POCL_ACTIVATIONS and any(d in str(cl_device()) for d in POCL_CANNOT_BUILD.devices)


def _check(case, check, *args) -> None:
    if _pocl_cannot_build(case):
        from acl_bridge.errors import AclExceptionError

        error, message = POCL_CANNOT_BUILD.refuses
        assert error == AclExceptionError.__name__
        with pytest.raises(AclExceptionError, match=message):
            check(case, "cl", *args)
    else:
        check(case, "cl", *args)


@pytest.mark.parametrize("case", FLOAT, ids=[c.id for c in FLOAT])
def test_cl_float_operator_matches_the_plan(case):
    _check(case, check_float)


@pytest.mark.parametrize("case", INT8, ids=[c.id for c in INT8])
def test_cl_int8_operator_within_two_steps_of_tflite(case):
    _check(case, check_int8, 2)


@pytest.mark.parametrize("case", MOVEMENT_GRAPHS, ids=[c.id for c in MOVEMENT_GRAPHS])
def test_cl_movement_graph_matches_the_plan(case):
    check_graph(case, "cl")
