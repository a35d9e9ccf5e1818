"""The int8 rows (tests/function_cases.py ``INT8_CASES``: per-channel QSYMM8_PER_CHANNEL
weights, int32 bias, fused clamps, softmax to 1/256, requantization) on ACL's CL backend,
through the same runner as every row (tests/acl/helpers.py ``run_case``): within one
quantization step of numpy, guard bytes and padding cells unchanged, every tensor the plan
does not stage the NdArray's own memory on the device; against NEON where the build has it."""

from __future__ import annotations

import pytest
from function_cases import INT8_CASES

from acl.helpers import run_case

pytestmark = pytest.mark.cl


@pytest.mark.parametrize("case,variant", [pytest.param(c, v, id=f"{c.name}-{v}") for c in INT8_CASES
                                          for v in c.variants_on("cl")])
def test_int8_function(case, variant):
    run_case(case, variant, "cl")
