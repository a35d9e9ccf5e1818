"""Every function kind on ACL's CL backend: the rows of tests/function_cases.py, the same
rows the NEON suite runs (tests/acl/test_functions.py), through the same runner
(tests/acl/helpers.py ``run_case``): against numpy, against NEON where this build has it,
guard bytes and padding cells unchanged, every tensor the plan does not stage the NdArray's
own memory on the device. What differs on CL is written in the row's ``notes["cl"]``."""

from __future__ import annotations

import pytest
from function_cases import params

from acl.helpers import run_case

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("case,variant", params("cl"))
def test_function(case, variant):
    run_case(case, variant, "cl")
