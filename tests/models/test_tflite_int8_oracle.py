"""The oracle of the ACL model tests (``tflite_int8_oracle.Int8Oracle``: TFLite's arithmetic on
the .tflite file itself, read with the ``tflite`` package) held to TFLite's interpreter on the
host: every tensor of every published int8 model and of the one-operator MEAN models bit for
bit with TFLite's reference kernels (the float32 twin within the float tolerance), and the
ResNet-8 bound of ``test_int8_models_acl.py`` on ACL 20.08 reproduced from its measured cause."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from .conftest import host_only_under_emulation, model_file, photo_file, tolerance  # noqa: E402
from .tflite_int8_oracle import Int8Oracle  # noqa: E402

MODELS = ["visual_wake_words", "image_classification", "keyword_spotting", "keyword_spotting_alexa",
          "keyword_spotting_alexa_float32", "fingerprint_signature_generator"]

# numpy against TFLite's interpreter: the host's job (ai-edge-litert 2.x dies loading these
# models under emulation, which is why the ACL tests there use this oracle)
pytestmark = host_only_under_emulation


def _reference_interpreter(model):
    litert = pytest.importorskip("ai_edge_litert.interpreter",
                                 reason="TFLite's interpreter (ai-edge-litert) is not installed")
    kw = {"model_content": bytes(model)} if isinstance(model, (bytes, bytearray)) else {"model_path": str(model)}
    it = litert.Interpreter(experimental_preserve_all_tensors=True,
                            experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF, **kw)
    it.allocate_tensors()
    return it


def _noise(oracle, seed):
    i = oracle.inputs[0]
    rng = np.random.default_rng(seed)
    if oracle.dtype(i) == np.float32:
        return rng.uniform(0, 255, oracle.shape(i)).astype(np.float32)
    return rng.integers(-128, 128, oracle.shape(i)).astype(oracle.dtype(i))


@pytest.mark.parametrize("name", MODELS)
def test_every_tensor_is_tflites_reference_kernels(name):
    path = model_file(name)
    oracle, it = Int8Oracle(path), _reference_interpreter(path)
    for seed in range(3):
        x = _noise(oracle, seed)
        got = oracle.run_tensors(x)
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        assert len(got) > 5
        for t, v in got.items():
            want = it.get_tensor(t)
            assert v.dtype == want.dtype and v.shape == want.shape, oracle.name(t)
            if v.dtype.kind == "f" and t != oracle.inputs[0]:
                assert np.abs(v - want).max() <= 1e-5 * max(1.0, float(np.abs(want).max())), oracle.name(t)
            else:
                assert np.array_equal(v, want), (seed, t, oracle.name(t), int((v != want).sum()))
        out = oracle.outputs[0]
        assert np.abs(got[out].astype(np.float64) - it.get_tensor(out)).max() <= tolerance(it.get_tensor(out))


def test_the_one_operator_mean_models_are_tflites_reference_kernels():
    pytest.importorskip("flatbuffers", reason="the 'flatbuffers' package is not installed")
    from .test_one_operator import CASES, MEAN_CASES, mean_inputs, one_operator_model

    for case in MEAN_CASES:
        data = case.model()
        oracle, it = Int8Oracle(data), _reference_interpreter(data)
        for x in mean_inputs(case, 20):
            it.set_tensor(it.get_input_details()[0]["index"], x)
            it.invoke()
            want = it.get_tensor(it.get_output_details()[0]["index"])
            got = oracle.run(x)["output"]
            assert got.dtype == want.dtype and np.array_equal(got, want), case.id
    for case in [c for c in CASES if c.opcode == "MEAN"]:
        data = one_operator_model(case.opcode, case.x, case.y, case.inputs, case.options, case.version)
        oracle, it = Int8Oracle(data), _reference_interpreter(data)
        x = np.random.default_rng(3).uniform(-3, 3, case.x).astype(np.float32)
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        want = it.get_tensor(it.get_output_details()[0]["index"])
        assert np.abs(oracle.run(x)["output"] - want).max() <= tolerance(want), case.id


def test_the_oracle_refuses_what_it_does_not_know():
    with pytest.raises(ValueError, match="the model wants"):
        Int8Oracle(model_file("keyword_spotting")).run(np.zeros((1, 2), np.float32))


def test_resnet8_bound_on_acl_2008_is_its_measured_cause():
    """ACL 20.08's int8 average pooling is one step off on all 64 outputs of ResNet-8's global
    pooling (measured under emulation); the rest of the model after it (fully connected,
    softmax) is exact on ACL. TFLite's arithmetic with every pooled output one step up gives
    76 output steps on the ACL test's noise input (seed 7) and 12 on the photograph: the
    measured 56-76 of the ACL test's docstring, so its bound (``RESNET8_BOUND_LSB['20.08']``)
    is that number, not a guess."""
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from acl_bridge.models.apps import classify, images

    from .test_int8_models_acl import RESNET8_BOUND_LSB

    oracle = Int8Oracle(model_file("image_classification"))
    (i,), (out,) = oracle.inputs, oracle.outputs
    pool = 34  # AVERAGE_POOL_2D's output in the file: (1, 1, 1, 64)
    assert oracle.shape(pool) == (1, 1, 1, 64)
    xs = [np.random.default_rng(7).integers(-128, 128, oracle.shape(i)).astype(np.int8),
          classify.model_input(images.load_rgb(photo_file()), oracle.shape(i), np.int8, oracle.quantization(i),
                               classify.CLASSIFIERS["image_classification"])]
    steps = []
    for x in xs:
        v = oracle.run_tensors(x)
        up = oracle.run_tensors(x, replace={pool: np.clip(v[pool].astype(np.int64) + 1, -128, 127)})
        steps.append(int(np.abs(up[out].astype(np.int64) - v[out]).max()))
    assert steps == [76, 12]
    assert max(steps) == RESNET8_BOUND_LSB["20.08"]
