"""RESIZE_BILINEAR on the host: the numpy formula (``step_kernels.resize_bilinear``, the
oracle of the ACL Resize tests) and the lowering of one-operator models, element by element
against TFLite's interpreter for every option combination; the refusal of both options."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
pytest.importorskip("flatbuffers", reason="the 'flatbuffers' package is not installed")

from acl_bridge.models.fallback.step_kernels import resize_bilinear  # noqa: E402
from acl_bridge.models.planning.numpy_executor import run_plan  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import UnsupportedModelError, read_model  # noqa: E402

from .conftest import interpreter_outputs  # noqa: E402
from .tiny_tflite import resize_bilinear_model  # noqa: E402

OPTIONS = {"half_pixel": dict(half_pixel_centers=True), "align_corners": dict(align_corners=True), "top_left": {}}
SHAPES = [((1, 6, 6, 5), (12, 12)), ((2, 8, 10, 3), (4, 5)), ((1, 5, 7, 4), (11, 3)), ((1, 4, 4, 1), (1, 1)),
          ((1, 3, 9, 2), (7, 4)), ((1, 1, 1, 2), (3, 2))]


@pytest.mark.parametrize("option", sorted(OPTIONS))
@pytest.mark.parametrize("shape, out", SHAPES, ids=[f"{s[1]}x{s[2]}to{o[0]}x{o[1]}" for s, o in SHAPES])
def test_formula_and_plan_match_the_interpreter(shape, out, option):
    data = resize_bilinear_model(shape, out, **OPTIONS[option])
    x = np.random.default_rng(5).uniform(-3, 3, shape).astype(np.float32)
    ref = interpreter_outputs(data, x)["output"]
    assert ref.shape == (shape[0], *out, shape[3])
    assert np.abs(resize_bilinear(x, out, **OPTIONS[option]) - ref).max() <= 2e-6
    plan = plan_model(read_model(data))
    (step,) = plan.steps
    assert step.kind == "resize" and dict(step.params) == {"align_corners": False, "half_pixel_centers": False,
                                                           **OPTIONS[option]}
    assert np.abs(run_plan(plan, x)["output"] - ref).max() <= 2e-6


def test_both_options_are_refused_at_load_naming_them():
    data = resize_bilinear_model((1, 4, 4, 1), (8, 8), align_corners=True, half_pixel_centers=True)
    with pytest.raises(UnsupportedModelError, match=r"operator #0 RESIZE_BILINEAR: option align_corners=True "
                                                    r"together with half_pixel_centers=True is not supported"):
        plan_model(read_model(data))


def test_a_size_that_does_not_give_the_output_is_a_format_error():
    import dataclasses

    from acl_bridge.models.format.tflite_reader import ModelFormatError

    m = read_model(resize_bilinear_model((1, 4, 4, 1), (8, 8), half_pixel_centers=True))
    size = m.tensors[1]
    bad = dataclasses.replace(m, tensors=(m.tensors[0], dataclasses.replace(size, data=np.array([8, 7], np.int32)),
                                          m.tensors[2]))
    with pytest.raises(ModelFormatError, match=r"RESIZE_BILINEAR: input \[1, 4, 4, 1\] resized to size \[8, 7\] "
                                               r"does not give the output \[1, 8, 8, 1\]"):
        plan_model(bad)
    absent = dataclasses.replace(m, operators=(dataclasses.replace(m.operators[0], inputs=(0, -1)),))
    with pytest.raises(UnsupportedModelError, match="a non-constant size input"):
        plan_model(absent)
