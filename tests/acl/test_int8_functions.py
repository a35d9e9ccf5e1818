"""int8 (quantized) ACL functions on NEON against numpy, element by element (issue 22).

Rows: ``function_cases.INT8_CASES`` (TFLite's full-integer conventions: int8 activations,
per-channel int8 convolution weights, int32 bias, fused RELU/RELU6 as clamps, softmax to
1/256 and -128, requantization). For each row and buffer layout (INT8_VARIANTS), on the ACL
version the module was built against:

* each output element is within one quantization step of numpy's (``one_step``; max pooling
  and copy exact); the rows' exact and one-step counts are printed at the end of the session
  (``INT8_REPORT``);
* guard bytes and every padding or gap cell are unchanged; the plan stages only what its
  layout asks for, with the negotiated padding nothing;
* where this ACL version refuses a row (``REFUSED``), the constructor raises the library's
  AclStatusError carrying ACL's own validate() message, never a crash.

Bad quantizations are refused before ACL sees them (test_bad_quantization_is_refused).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from function_cases import INT8_CASES, TOLERANCES, cpu_marks

from .helpers import _check_plan, _configure, compare

pytestmark = pytest.mark.acl

# (row name prefix, ACL version) -> regex of ACL's validate() message where that version refuses
# the row. ACL 20.08's native depthwise kernel (per-channel int8 weights) asks its 1-D bias for
# bottom rows (NEDepthwiseConvolutionLayerNativeKernel.cpp:494, "Insufficient Padding!" without
# them), which the bridge now gives a 1-D tensor (PaddingSize.for_rank): no refusal left there.
REFUSED = {
    # measured on bookworm: 20.08's deconvolution takes per-tensor int8 weights only
    ("int8-deconvolution-k3s2p0101-perchannel", "20.08"):
        r"NEDeconvolutionLayer::validate: .*Tensors have different data types",
    # 20.08's QLSTMLayer is not run (native/acl_shim_qlstm.cpp): refused as ACL's refusal
    ("qlstm-", "20.08"): r"NEQLSTMLayer::validate: refused on ACL 2008",
}

INT8_REPORT = {}  # (ACL version, row, variant) -> (elements, exact, one step off or max |difference| of floats)


def _acl_version() -> str:
    from acl_bridge import native

    return native.acl_version()


def _refusal(case):
    version = _acl_version()
    for (prefix, v), message in REFUSED.items():
        if v == version and case.name.startswith(prefix):
            return message
    return None


@pytest.mark.parametrize("case,variant", [pytest.param(c, v, id=f"{c.name}-{v}", marks=cpu_marks(c.kind))
                                          for c in INT8_CASES for v in c.variants])
def test_int8_function(case, variant):
    from acl_bridge.errors import AclStatusError

    inputs = case.inputs()
    refusal = _refusal(case)
    if refusal is not None:
        with pytest.raises(AclStatusError, match=refusal):
            _configure(case, variant, "neon", inputs)
        return
    f, g, expected = _configure(case, variant, "neon", inputs)
    _check_plan(f, g, variant)
    for _ in range(2):
        f.run()
    assert f.copy_count == 2 * f.plan.copies_per_run
    tol = TOLERANCES[case.tolerance]
    for role, want in expected.items():
        got = g[role].numpy()
        assert got.dtype == np.dtype(case.outputs[role])
        compare(got, want, tol, f"neon {role} ({variant}) vs numpy")
        diff = np.abs(np.asarray(got, np.float64) - np.asarray(want, np.float64))
        off = int(np.sum((diff > 0) & (diff <= 1))) if got.dtype.kind in "iu" else float(diff.max())
        INT8_REPORT[(_acl_version(), case.name, variant)] = (int(diff.size), int(np.sum(diff == 0)), off)
    for role, x in g.items():
        if x is not None:
            assert x.untouched(), f"{role} ({variant}): bytes outside the elements changed at {x.changed_outside()[:16]}"
            if role not in f.staged:
                assert f.tensors[role].data_ptr == x.array.data_ptr
    f.close()


def _conv_arrays():
    x = np.zeros((1, 5, 5, 4), np.int8)
    w = np.ones((3, 3, 3, 4), np.int8)
    b = np.zeros(3, np.int32)
    y = np.zeros((1, 5, 5, 3), np.int8)
    return x, w, b, y


GOOD = {"src": (0.1, 0), "weights": ((0.01, 0.02, 0.03), 0), "bias": ((0.001, 0.002, 0.003), 0), "dst": (0.2, 1)}


@pytest.mark.parametrize("role,q,error,message", [
    ("weights", ((0.01, 0.02), 0), "InvalidLayoutError", r"2 scales, expected 3 \(the output-channel extent"),
    ("weights", ((0.01, 0.0, 0.03), 0), "InvalidLayoutError", r"scale \[1\] is 0.0, expected a finite number > 0"),
    ("weights", ((0.01, float("nan"), 0.03), 0), "InvalidLayoutError", r"scale \[1\] is nan"),
    ("weights", ((0.01, -0.02, 0.03), 0), "InvalidLayoutError", r"scale \[1\] is -0.02"),
    ("weights", ((0.01, 0.02, 0.03), 4), "InvalidLayoutError", r"offset is 4, expected 0"),
    ("src", ((0.01, 0.02, 0.03, 0.04), 0), "UnsupportedOptionError", r"quantization of src is per channel"),
    ("dst", (float("inf"), 0), "InvalidLayoutError", r"scale is inf"),
    ("dst", (0.2, 200), "InvalidLayoutError", r"offset is 200, expected -128 <= offset <= 127"),
    ("bias", (0.001, 3), "InvalidLayoutError", r"offset of an int32 bias is 3, expected 0"),
])
def test_bad_quantization_is_refused(role, q, error, message):
    import ndarray.errors

    from acl_bridge.functions import Convolution

    quant = dict(GOOD, **{role: q})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(getattr(ndarray.errors, error), match=message):
            Convolution(*_conv_arrays(), padding=1, data_layout="NHWC", quantization=quant)
        with pytest.raises(getattr(ndarray.errors, error), match=message):
            Convolution.required_padding(*_conv_arrays(), padding=1, data_layout="NHWC", quantization=quant)


def test_the_good_quantization_configures_and_the_tensor_info_shows_it():
    from acl_bridge.functions import Convolution

    f = Convolution(*_conv_arrays(), padding=1, data_layout="NHWC", quantization=GOOD)
    info = f.tensors["weights"].info
    assert info.data_type == "QSYMM8_PER_CHANNEL" and info.quantization_scales == (0.01, 0.02, 0.03)
    assert "3 scales" in repr(info)
    assert f.tensors["bias"].info.data_type == "S32"
    assert f.tensors["src"].info.data_type == "QASYMM8_SIGNED"
    f.run()
    f.close()


def pytest_terminal_summary_lines():
    """Lines for tests/acl/conftest.py: exact / one-step counts per row."""
    lines = []
    for (version, name, variant), (n, exact, off) in sorted(INT8_REPORT.items()):
        rest = f"{off} one step off" if isinstance(off, int) else f"the rest within {off:.3g} (float32 output)"
        lines.append(f"ACL {version} {name} [{variant}]: {n} elements, {exact} exact, {rest}")
    return lines
