"""The quantized LSTM kind (acl_bridge.families.qlstm: ACL's NEQLSTMLayer, 24.11) against
TFLite's integer LSTM (the fallback's numpy kernel, bit for bit with TFLite's interpreter on
the host), per output on plain numpy arrays: the measured differences printed, within the
bounds stated here (measured on ACL 24.11 NEON under QEMU). The case table's rows
(function_cases._qlstm_rows, test_int8_functions.py) check the layouts, padding and guards;
ACL 20.08 refuses the kind (ACL's refusal), CL too (the room wires NEON only). The rows keep
|cell state| < 1: ACL's QLSTMLayer writes forget gate x cell state into the forget gate's Q0.15
tensor, which saturates at 1 (measured: cell 2980 where TFLite's kernel gives 8589), a
difference of behaviour, not of rounding. test_qlstm_configurations measures each optional part
(docs/models.md, LSTM row, says why no rule lowers to the kind)."""

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


# one configuration class each (batch 2, 3 inputs, 4 cells, 4 outputs, no projection, no clip),
# from a random state or from TFLite's reset state (the output state at its zero point, the cell
# state 0): (name, qlstm_inputs options, matmul scales, zero state, the measured max |ACL - TFLite|
# of dst in int8 steps, ACL 24.11 NEON under QEMU, plus 1: two runs for plain-zero-state,
# cifg-peephole-layer_norm-zero-state and the random-state rows, which differed by up to 1, one for
# the other zero-state rows). Without layer normalization ACL adds no gate bias (its QLSTMLayer passes
# the gate biases to the layer norm only): these rows' biases are small (about 0.07 of a gate's
# input), a model's are not (docs/models.md). With layer normalization from the reset state: up
# to 37 steps, not explained.
LN_SCALES = (0.0005, 0.0007, 0.0004, 0.0006)
Q12 = (2.0 ** -12,) * 4
CONFIGS = [
    ("cifg", dict(cifg=True), Q12, False, 3),
    ("peephole", dict(peephole=True), Q12, False, 3),
    ("layer_norm", dict(layer_norm=True), LN_SCALES, False, 5),
    ("cifg-peephole-layer_norm", dict(cifg=True, peephole=True, layer_norm=True), LN_SCALES, False, 6),
    ("plain-zero-state", {}, Q12, True, 5),
    ("cifg-zero-state", dict(cifg=True), Q12, True, 3),
    ("peephole-zero-state", dict(peephole=True), Q12, True, 2),
    ("layer_norm-zero-state", dict(layer_norm=True), LN_SCALES, True, 12),
    ("cifg-layer_norm-zero-state", dict(cifg=True, layer_norm=True), LN_SCALES, True, 6),
    ("peephole-layer_norm-zero-state", dict(peephole=True, layer_norm=True), LN_SCALES, True, 6),
    ("cifg-peephole-layer_norm-zero-state", dict(cifg=True, peephole=True, layer_norm=True), LN_SCALES, True, 38),
]


def _run(options, scales, zero_state, clip=0.0):
    from acl_bridge.families import QLstm

    from function_cases import QLSTM_H, qlstm_inputs, qlstm_reference

    v, q = qlstm_inputs(43, 2, 3, 4, 4, **options)
    if zero_state:  # TFLite's reset state: the output state at its zero point, the cell state 0
        v["output_state_in"] = np.full_like(v["output_state_in"], QLSTM_H[1])
        v["cell_state_in"] = np.zeros_like(v["cell_state_in"])
    kwargs = dict(quantization=q, matmul_scales=scales, hidden_scale=QLSTM_H[0], hidden_zero_point=QLSTM_H[1],
                  cell_clip=clip)
    want = qlstm_reference(v, q, scales, QLSTM_H, clip)
    outs = {r: np.zeros(want[r].shape, want[r].dtype) for r in want}
    f = QLstm(**v, **outs, **kwargs)
    f.run()
    f.close()
    return outs, want


@pytest.mark.parametrize("name,options,scales,zero_state,bound", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_qlstm_configurations(name, options, scales, zero_state, bound):
    from acl_bridge import native

    if native.acl_version().startswith("20."):
        pytest.skip("ACL 20.08 refuses the kind (test_qlstm_against_tflites_integer_kernel checks the refusal)")
    outs, want = _run(options, scales, zero_state)
    for role in ("dst", "cell_state_out"):
        diff = np.abs(outs[role].astype(np.int64) - want[role].astype(np.int64))
        print(f"qlstm {name} {role}: max |ACL - TFLite| {int(diff.max())}, {int((diff == 0).sum())} of {diff.size} "
              f"equal", flush=True)
    assert np.abs(outs["dst"].astype(np.int64) - want["dst"].astype(np.int64)).max() <= bound


@pytest.mark.parametrize("option", ["cell_clip", "projection_clip"])
def test_qlstm_refuses_a_clip(option):
    """ACL's clips are LU_BOUNDED_RELU(a=-clip, b=clip), min(a, max(b, x)), with the quantized
    clip compared to the dequantized cell: every cell state became -clip, saturated to -32768,
    whatever the clip (measured on ACL 24.11 with clips 0.3 and 1.0: the cause of the 143 steps
    measured with CIFG, peepholes, layer norm and a clip; docs/models.md). So QLstm refuses a
    clip, naming it, before anything is configured; the outputs stay as they were."""
    from acl_bridge.families import QLstm
    from ndarray.errors import UnsupportedOptionError

    from function_cases import QLSTM_H, qlstm_inputs

    v, q = qlstm_inputs(41, 2, 3, 4, 4)
    outs = {r: np.full((2, 4), 7, np.int8) for r in ("dst", "output_state_out")}
    with pytest.raises(UnsupportedOptionError, match=rf"QLstm: {option} is 0.3, expected 0: ACL's QLSTMLayer clips "
                                                     r"with LU_BOUNDED_RELU"):
        QLstm(**v, **outs, quantization=q, matmul_scales=(2.0 ** -12,) * 4, hidden_scale=QLSTM_H[0],
              hidden_zero_point=QLSTM_H[1], **{option: 0.3})
    assert all((o == 7).all() for o in outs.values())
