"""Every ACL function on NEON against a numpy reference, on every buffer layout: the rows of
tests/function_cases.py (the CL suite, tests/cl/test_cl_functions.py, runs the same rows).

For each row and layout variant (tests/acl/helpers.py): np.arange-style inputs, two runs of
one configured function, then (``run_case``)
* the result matches numpy within the tolerance of its data type (TOLERANCES);
* guard bytes before/after every buffer and every padding or gap cell are unchanged;
* a tensor is staged (copy fallback) exactly when its buffer lacks the padding ACL asked
  for or ACL cannot express its layout, and the copies are counted; otherwise the ACL
  tensor's data pointer is the NdArray's own;
* with the negotiated padding allocated up front nothing is staged.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from function_cases import params

from .helpers import PADDING_LOG, Guarded, _configure, arange_values, run_case  # noqa: F401 (PADDING_LOG: tests/acl/conftest.py)

pytestmark = pytest.mark.acl

# (row name regex, ACL version) -> regex of ACL's validate() message where that version refuses
# the row on every buffer, the negotiated one included. (ACL 20.08's NEReductionOperation
# refused a reduction along its y dimension, numpy axis 2 of a rank-4 src, with "Insufficient
# Padding!" until issue 36: its output's y has size 1 and the mapping hid the right padding
# it asks; the bridge's padded buffers now keep that stride, mapping.size1_strides.)
REFUSED = {
    # ACL 20.08 has no MatMul and no Conv3D: the shim refuses as ACL would (native/acl_shim_nn.cpp)
    (r"^matmul-", "20.08"): r"NEMatMul::validate: ACL 2008 has no MatMul function",
    (r"^convolution_3d-", "20.08"): r"NEConv3D::validate: ACL 2008 has no Conv3D function",
    # ACL 20.08 has no Pooling3dLayer (native/acl_shim_pooling3d.cpp)
    (r"^pooling_3d-", "20.08"): r"NEPooling3dLayer::validate: ACL 2008 has no Pooling3dLayer function",

    # ACL 20.08's NELSTMLayer::configure() did not return (native/acl_shim_lstm.cpp): refused
    (r"^lstm-", "20.08"): r"NELSTMLayer::validate: refused on ACL 2008: its LSTMLayer::configure\(\) did not return",
}

# (row name regex, ACL version) -> regex of the message where that version lacks the row's ACL
# function (AclUnsupportedError at configure): ACL 20.08 has no NELogicalAnd / Or / Not.
UNSUPPORTED = {
    (r"^logical_\w+-", "20.08"): r"ACL 20\.08 has no NELogicalAnd/Or/Not",
    (r"^activation-gelu$", "20.08"): r"activation 15 needs ACL >= 24\.11",
}


def _refusal(case):
    from acl_bridge import native

    version = native.acl_version()
    return next((message for (pattern, v), message in REFUSED.items()
                 if v == version and re.match(pattern, case.name)), None)


@pytest.mark.parametrize("case,variant", params("neon"))
def test_function(case, variant):
    from acl_bridge import native
    from acl_bridge.errors import AclStatusError, AclUnsupportedError

    missing = next((m for (pattern, v), m in UNSUPPORTED.items()
                    if v == native.acl_version() and re.match(pattern, case.name)), None)
    if missing is not None:
        with pytest.raises(AclUnsupportedError, match=missing):
            _configure(case, variant, "neon", case.inputs())
        return
    refusal = _refusal(case)
    if refusal is not None:
        with pytest.raises(AclStatusError, match=refusal):
            _configure(case, variant, "neon", case.inputs())
        return
    run_case(case, variant, "neon")


def test_permute_round_trip():
    from acl_bridge import functions as fn

    x = arange_values((2, 3, 4, 5), scale=1.0)
    mid = Guarded((2, 4, 5, 3))
    back = Guarded(x.shape)
    src = Guarded(x.shape).set(x)
    fn.Permute(src.array, mid.array, (0, 2, 3, 1)).run()
    fn.Permute(mid.array, back.array, (0, 3, 1, 2)).run()
    np.testing.assert_array_equal(back.numpy(), x)
