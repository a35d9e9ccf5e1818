"""Constant folding at load (planning/constant_folding.py): shape arithmetic with static
shapes becomes constants equal to what TFLite's interpreter computes for the same tensors,
and nothing else changes: graph outputs, operators with a live input, and outputs over the
size bound stay operators."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from acl_bridge.models.planning import constant_folding  # noqa: E402
from acl_bridge.models.planning.constant_folding import fold_constants  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402

from .conftest import host_only_under_emulation, model_file  # noqa: E402
from .graph_tflite import chain  # noqa: E402
from .tiny_tflite import X, one_operator_model  # noqa: E402

pytestmark = host_only_under_emulation


def _spec(path_or_bytes):
    return fold_constant_dequantize(read_model(path_or_bytes))


@pytest.mark.filterwarnings("ignore:Warning. Enabling `experimental_preserve_all_tensors`")
def test_shape_arithmetic_is_folded_to_tflites_own_values():
    interp = pytest.importorskip("ai_edge_litert.interpreter",
                                 reason="TFLite's interpreter (ai-edge-litert) is not installed")
    path = model_file("anomaly_detection")
    spec = _spec(path)
    folded = fold_constants(spec)
    gone = [op for op in spec.operators if op.index not in {o.index for o in folded.operators}]
    assert [op.opcode for op in gone] == ["SHAPE", "STRIDED_SLICE", "PACK"]
    it = interp.Interpreter(model_path=str(path), experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    x = np.zeros(spec.tensors[spec.inputs[0]].shape, np.float32)
    it.set_tensor(spec.inputs[0], x)
    it.invoke()
    for op in gone:
        for i in op.outputs:
            assert folded.tensors[i].is_constant and not folded.tensors[i].data.flags.writeable
            np.testing.assert_array_equal(folded.tensors[i].data, it.get_tensor(i), err_msg=spec.tensors[i].name)
    plan = plan_model(spec, fallback=True)
    assert plan.fallbacks == () and plan.model.operators == folded.operators  # the model now lowers whole
    np.testing.assert_array_equal(run_plan(plan, x)["Identity"], it.get_tensor(spec.outputs[0]))


def test_a_model_with_nothing_to_fold_is_returned_as_it_is():
    spec = _spec(model_file("face_detection_front"))
    assert fold_constants(spec) is spec


def test_an_operator_writing_a_graph_output_is_not_folded():
    spec = _spec(one_operator_model("SHAPE", (1, 4, 5, 3), (4,), (X,), ("ShapeOptions", {"OutType": 2}),
                                    output_dtype="int32"))
    assert fold_constants(spec) is spec


def test_an_operator_with_a_live_input_is_not_folded():
    spec = _spec(chain(["RELU", "ABS"], (1, 4, 4, 3)))
    assert fold_constants(spec) is spec


def test_an_output_over_the_bound_is_not_folded(monkeypatch):
    spec = _spec(model_file("anomaly_detection"))
    monkeypatch.setattr(constant_folding, "MAX_FOLDED_ELEMENTS", 1)  # SHAPE's [1, 640] has 2 elements
    assert [op.opcode for op in fold_constants(spec).operators].count("SHAPE") == 1
