"""The quantized LSTM kind (acl_bridge.families.qlstm: ACL's NEQLSTMLayer, 24.11) against
TFLite's integer LSTM (the fallback's numpy kernel, bit for bit with TFLite's interpreter on
the host), per output on plain numpy arrays: the measured differences printed, within the
bounds stated here (measured on ACL 24.11 NEON under QEMU). The case table's rows
(function_cases._qlstm_rows, test_int8_functions.py) check the layouts, padding and guards;
ACL 20.08 refuses the kind (ACL's refusal), CL too (the room wires NEON only). The rows keep
|cell state| < 1: ACL's QLSTMLayer writes forget gate x cell state into the forget gate's Q0.15
tensor, which saturates at 1 (measured: cell 2980 where TFLite's kernel gives 8589), a
difference of behaviour, not of rounding."""

from __future__ import annotations

import numpy as np
import pytest
from function_cases import INT8_CASES

pytestmark = pytest.mark.acl

ROWS = [c for c in INT8_CASES if c.kind == "QLstm"]
# measured max |ACL - TFLite| of the int8 outputs, in steps of their scale (ACL 24.11 NEON under
# QEMU: 3, 4 of 8 elements equal); the int16 cell state's difference is printed
BOUND = {"dst": 3, "output_state_out": 3}


@pytest.mark.parametrize("case", ROWS, ids=[c.name for c in ROWS])
def test_qlstm_against_tflites_integer_kernel(case):
    from acl_bridge import native
    from acl_bridge.errors import AclStatusError
    from acl_bridge.families import QLstm

    from function_cases import QLSTM_H, qlstm_reference

    v = case.inputs()
    kwargs = dict(case.kwargs)
    want = qlstm_reference(v, kwargs["quantization"], kwargs["matmul_scales"], QLSTM_H, kwargs["cell_clip"])
    outs = {r: np.zeros(want[r].shape, want[r].dtype) for r in want}
    if native.acl_version().startswith("20."):
        with pytest.raises(AclStatusError, match="NEQLSTMLayer::validate: refused on ACL 2008"):
            QLstm(**v, **outs, **kwargs)
        return
    f = QLstm(**v, **outs, **kwargs)
    f.run()
    for role, expected in want.items():
        diff = np.abs(outs[role].astype(np.int64) - expected.astype(np.int64))
        print(f"{case.name} {role}: max |ACL - TFLite| {int(diff.max())}, {int((diff == 0).sum())} of {diff.size} "
              f"equal")
        if role in BOUND:
            assert diff.max() <= BOUND[role], (role, outs[role], expected)
    f.close()
