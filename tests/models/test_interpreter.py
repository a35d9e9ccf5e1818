"""``acl_bridge.interpreter.Interpreter`` against TFLite's own (ai-edge-litert), the same call
sequence on both, on every fetched model (host; the numpy backend): the details dicts field by
field, the outputs (float32 within the stated tolerance, int8 bit for bit: both run TFLite's
reference kernels, ``experimental_op_resolver_type=BUILTIN_REF`` given to both), the builtin
exception classes of each misuse, ``get_tensor`` a copy and ``tensor()`` a view of the
runner's own buffer. TFLite's label_image example, paraphrased (see the last test)."""

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the tflite package is not installed")

from ndarray.errors import AclNdarrayError  # noqa: E402

from acl_bridge import interpreter as ours  # noqa: E402
from acl_bridge.models.apps import fetch  # noqa: E402

from .conftest import host_only_under_emulation, model_file, photo_file, tolerance  # noqa: E402
from .test_mltk_models import noise  # noqa: E402
from .test_sparsity import EXAMPLES, model_of  # noqa: E402

BUILTINS = (ValueError, TypeError, RuntimeError, IndexError, OSError)


def litert():
    return pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (ai-edge-litert) is not installed")


def same_details(theirs, mine, where):
    """TFLite's details (dict / list / array / scalar) equal to ours field by field. One
    exception, ai-edge-litert 1.x's own: a per-channel tensor whose zero points are all one
    value is given a single zero point (the file, and this library, keep one per channel)."""
    if isinstance(theirs, dict):
        assert set(theirs) == set(mine), (where, set(theirs) ^ set(mine))
        for k in theirs:
            if k == "zero_points" and len(theirs[k]) == 1 and len(mine[k]) > 1:
                assert mine[k].dtype == theirs[k].dtype and (mine[k] == theirs[k][0]).all(), (where, k)
            else:
                same_details(theirs[k], mine[k], f"{where}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(theirs) is type(mine) and len(theirs) == len(mine), (where, theirs, mine)
        for k, (a, b) in enumerate(zip(theirs, mine)):
            same_details(a, b, f"{where}[{k}]")
    elif isinstance(theirs, np.ndarray):
        assert isinstance(mine, np.ndarray) and mine.dtype == theirs.dtype and mine.shape == theirs.shape, \
            (where, theirs, mine)
        assert np.array_equal(mine, theirs), (where, theirs, mine)
    else:
        assert type(mine) is type(theirs) and mine == theirs, (where, theirs, mine)


def raised(call):
    """The builtin classes of what ``call`` raises (None: it did not), and the exception."""
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the classes are what is compared
        return frozenset(c for c in BUILTINS if isinstance(e, c)), e
    return None, None


def other_dtype(dtype):
    return np.float64 if np.dtype(dtype) != np.float64 else np.float32


def sequence(Interpreter, path, inputs, **kwargs):
    """TFLite's calls as scripts make them, misuse included: what each returned or raised."""
    out = {"errors": {}}
    errors = out["errors"]
    it = Interpreter(model_path=str(path), **kwargs)
    out["input_details"] = it.get_input_details()
    out["output_details"] = it.get_output_details()
    out["tensor_details"] = it.get_tensor_details()
    out["signatures"] = it.get_signature_list()
    first = out["input_details"][0]
    errors["invoke before allocate_tensors"] = raised(it.invoke)
    errors["set_tensor before allocate_tensors"] = raised(lambda: it.set_tensor(first["index"], inputs[0]))
    errors["get_tensor before allocate_tensors"] = raised(lambda: it.get_tensor(first["index"]))
    errors["tensor() before allocate_tensors"] = raised(lambda: it.tensor(first["index"])())
    it.allocate_tensors()
    # far past the end (ai-edge-litert 1.4 dies with SIGSEGV on the indices of its kernels' scratch
    # tensors, just past the model's)
    errors["set_tensor index past the end"] = raised(lambda: it.set_tensor(1 << 20, inputs[0]))
    errors["get_tensor index -1"] = raised(lambda: it.get_tensor(-1))
    errors["tensor() index past the end"] = raised(lambda: it.tensor(1 << 20)())
    errors["set_tensor index not an int"] = raised(lambda: it.set_tensor("0", inputs[0]))
    errors["set_tensor wrong rank"] = raised(lambda: it.set_tensor(first["index"], inputs[0].reshape(-1)))
    errors["set_tensor wrong dtype"] = raised(lambda: it.set_tensor(first["index"],
                                                                    inputs[0].astype(other_dtype(first["dtype"]))))
    for d, x in zip(out["input_details"], inputs):
        it.set_tensor(d["index"], x)
    held = it.tensor(first["index"])()[..., :1]  # a slice of the view: the view is held through it
    errors["invoke with a view held"] = raised(it.invoke)
    errors["allocate_tensors with a view held"] = raised(it.allocate_tensors)
    del held
    it.invoke()
    out["outputs"] = {d["name"]: it.get_tensor(d["index"]) for d in out["output_details"]}
    o = out["output_details"][0]["index"]
    copy = it.get_tensor(o)
    view = it.tensor(o)()
    out["get_tensor is a copy"] = not np.shares_memory(copy, view) and copy.flags.owndata
    del view
    it.invoke()  # the view gone, invoke runs again
    return out, it


@host_only_under_emulation
@pytest.mark.parametrize("name", sorted(fetch.MODELS))
def test_the_same_calls_give_what_tflite_gives(name):
    tfl = litert()
    path = model_file(name)
    ref = {"experimental_op_resolver_type": tfl.OpResolverType.BUILTIN_REF, "num_threads": 1}
    probe = ours.Interpreter(model_path=str(path), backend="numpy")
    inputs = [noise(_Spec(d), seed) for seed, d in enumerate(probe.get_input_details())]
    theirs, _ = sequence(tfl.Interpreter, path, inputs, **ref)
    mine, it = sequence(ours.Interpreter, path, inputs, backend="numpy", **ref)
    assert it.runner.backend.name == "numpy"
    for key in ("input_details", "output_details", "signatures"):
        same_details(theirs[key], mine[key], key)
    # TFLite lists the model's tensors (and may add scratch tensors of its kernels after them)
    assert len(mine["tensor_details"]) <= len(theirs["tensor_details"])
    same_details(theirs["tensor_details"][:len(mine["tensor_details"])], mine["tensor_details"], "tensor_details")
    for what, (classes, error) in theirs["errors"].items():
        got, e = mine["errors"][what]
        assert classes is not None, f"TFLite accepted: {what}"
        assert got is not None and classes <= got and isinstance(e, AclNdarrayError), (what, classes, got, e)
    assert theirs["get_tensor is a copy"] and mine["get_tensor is a copy"]
    same_outputs(theirs["outputs"], mine["outputs"], name)


def same_outputs(reference, got, name):
    """Outputs by name: the same dtypes and shapes, float32 within the stated tolerance, integer
    bit for bit."""
    assert set(got) == set(reference), (name, sorted(got), sorted(reference))
    for k, want in reference.items():
        assert got[k].dtype == want.dtype and got[k].shape == want.shape, (name, k)
        if want.dtype.kind == "f":
            np.testing.assert_allclose(got[k], want, atol=tolerance(want), err_msg=f"{name} {k}")
        else:
            np.testing.assert_array_equal(got[k], want, err_msg=f"{name} {k}")


class _Spec:
    """What test_mltk_models.noise reads (shape, dtype) from a details dict."""

    def __init__(self, d):
        self.shape, self.dtype = tuple(int(v) for v in d["shape"]), np.dtype(d["dtype"])


def label_image(Interpreter, model_path, image_path, labels, **kwargs):
    """TFLite's published example tensorflow/lite/examples/python/label_image.py, its calls in
    order (paraphrased; the script itself was run unchanged apart from its import line,
    ``import tensorflow as tf`` -> ``import types, acl_bridge.interpreter; tf =
    types.SimpleNamespace(lite=acl_bridge.interpreter)``, with ``-m visual_wake_words.tflite -i
    astronaut.png -l`` a file of the two labels: it printed ``0.910156: non_person``,
    ``0.089844: person``, TFLite's reference kernels' scores to the last bit). Returns the
    top-5 lines it prints."""
    from PIL import Image

    interpreter = Interpreter(model_path=str(model_path), **kwargs)
    interpreter.allocate_tensors()
    input_details = interpreter.get_input_details()
    output_details = interpreter.get_output_details()
    floating_model = input_details[0]["dtype"] == np.float32
    height, width = input_details[0]["shape"][1], input_details[0]["shape"][2]
    img = Image.open(image_path).resize((width, height))
    input_data = np.expand_dims(img, axis=0)
    if floating_model:
        input_data = (np.float32(input_data) - 127.5) / 127.5
    interpreter.set_tensor(input_details[0]["index"], input_data)
    interpreter.invoke()
    results = np.squeeze(interpreter.get_tensor(output_details[0]["index"]))
    top_k = results.argsort()[-5:][::-1]
    return ["{:08.6f}: {}".format(float(results[i]) if floating_model else float(results[i] / 255.0), labels[i])
            for i in top_k]


@host_only_under_emulation
def test_tflites_label_image_example_prints_what_tflite_prints():
    tfl = litert()
    pytest.importorskip("PIL", reason="Pillow is not installed")
    path, photo = model_file("visual_wake_words"), photo_file()
    labels = ["person", "non_person"]
    ref = {"experimental_op_resolver_type": tfl.OpResolverType.BUILTIN_REF}
    theirs = label_image(tfl.Interpreter, path, photo, labels, **ref)
    mine = label_image(ours.Interpreter, path, photo, labels, **ref)
    assert mine == theirs == ["0.910156: non_person", "0.089844: person"]


@host_only_under_emulation
def test_signature_runner_gives_what_tflites_gives():
    tfl = litert()
    path = model_file("autoencoder_example")  # one SignatureDef, serving_default
    ref = {"experimental_op_resolver_type": tfl.OpResolverType.BUILTIN_REF}
    theirs, mine = tfl.Interpreter(model_path=str(path), **ref), ours.Interpreter(model_path=str(path), **ref)
    assert mine.get_signature_list() == theirs.get_signature_list() == {
        "serving_default": {"inputs": ["input_1"], "outputs": ["sequential_1"]}}
    t_run, m_run = theirs.get_signature_runner(), mine.get_signature_runner("serving_default")
    same_details(t_run.get_input_details(), m_run.get_input_details(), "signature inputs")
    same_details(t_run.get_output_details(), m_run.get_output_details(), "signature outputs")
    d = mine.get_input_details()[0]
    x = noise(_Spec(d), 3)
    got, ref_out = m_run(input_1=x), t_run(input_1=x)
    assert set(got) == set(ref_out) == {"sequential_1"}
    np.testing.assert_array_equal(got["sequential_1"], ref_out["sequential_1"])
    with pytest.raises(ValueError, match=r"input 'x' is not the signature's, expected one of \['input_1'\]"):
        m_run(x=x)
    with pytest.raises(ValueError, match=r"signature_key is 'other', expected one of \['serving_default'\]"):
        mine.get_signature_runner("other")


@host_only_under_emulation
def test_tensor_is_a_view_of_the_runners_own_buffer(front_path):
    it = ours.Interpreter(model_path=str(front_path), backend="numpy")
    with pytest.raises(ours.TensorAccessError, match=r"tensor #0 'input' has no memory before allocate_tensors\(\)"):
        it.get_tensor(0)
    it.allocate_tensors()
    i = it.get_input_details()[0]["index"]
    o = it.get_output_details()[0]["index"]
    buffer = it.runner.arrays[i]
    view = it.tensor(i)()
    assert np.shares_memory(view, buffer.allocation) and view.flags.writeable and view.shape == (1, 128, 128, 3)
    view[...] = np.linspace(-1, 1, view.size, dtype=np.float32).reshape(view.shape)  # written in place
    np.testing.assert_array_equal(it.get_tensor(i), view)
    with pytest.raises(ours.InterpreterStateError, match=r"invoke\(\) while 1 numpy view\(s\) from tensor\(\) are alive"):
        it.invoke()
    with pytest.raises(ours.InterpreterStateError, match=r"resize_tensor_input\(\) while 1 numpy view"):
        it.resize_tensor_input(i, [1, 128, 128, 3])
    expected = it.runner.run(np.array(view))[it.get_output_details()[0]["name"]].copy()
    del view
    it.invoke()
    out = it.tensor(o)
    np.testing.assert_array_equal(out(), expected)
    np.testing.assert_array_equal(it.get_tensor(o), expected)


def test_misuse_is_refused_naming_the_value(front_path):
    tfl = litert()
    for kwargs, message in [({}, "model_path or model_content must be given"),
                            ({"model_path": str(front_path), "model_content": b"x"}, "both model_path and model_content"),
                            ({"model_path": str(front_path), "num_threads": 0}, r"num_threads is 0, expected None or an int >= 1"),
                            ({"model_path": str(front_path), "experimental_delegates": [object()]},
                             "loads no TFLite delegate"),
                            ({"model_path": str(front_path), "backend": "gpu"},
                             r"backend is 'gpu', expected one of \['auto', 'neon', 'cl', 'numpy'\]"),
                            ({"model_path": str(front_path), "experimental_op_resolver_type": 7},
                             "experimental_op_resolver_type is 7")]:
        with pytest.raises(ValueError, match=message):
            ours.Interpreter(**kwargs)
    with pytest.raises(ours.ModelFileError, match="model_path '/nonexistent.tflite' cannot be read") as e:
        ours.Interpreter(model_path="/nonexistent.tflite")
    assert isinstance(e.value, ValueError) and isinstance(e.value, OSError)
    with pytest.raises(ValueError, match="the model has no subgraph"):
        ours.Interpreter(model_content=b"\0" * 64)
    with pytest.raises(ValueError, match="load_delegate"):
        ours.load_delegate("libfoo.so")
    # TFLite's own enum is accepted, as is the model's bytes
    with open(front_path, "rb") as f:
        it = ours.Interpreter(model_content=f.read(), experimental_op_resolver_type=tfl.OpResolverType.BUILTIN,
                              backend="numpy", num_threads=2)
    it.allocate_tensors()
    i = it.get_input_details()[0]["index"]
    it.resize_tensor_input(i, [1, 128, 128, 3])  # the model's own shape: accepted
    with pytest.raises(ValueError, match=r"resize_tensor_input\(0, \[2, 128, 128, 3\]\): tensor #0 'input' has shape "
                                         r"\[1, 128, 128, 3\] and the bridge plans every tensor's shape once"):
        it.resize_tensor_input(i, [2, 128, 128, 3])
    constant = next(d["index"] for d in it.get_tensor_details() if it.runner.plan.model.tensors[d["index"]].is_constant)
    with pytest.raises(ours.TensorAccessError, match=r"is a constant of the model: it cannot be set"):
        it.set_tensor(constant, np.zeros(it.get_tensor_details()[constant]["shape"], np.float32))
    with pytest.raises(ours.TensorDtypeError, match=r"tensor #0 'input' is float32, the value is float64: nothing is cast"):
        it.set_tensor(i, np.zeros((1, 128, 128, 3)))
    with pytest.raises(TypeError, match=r"tensor index is True, expected an int"):
        it.get_tensor(True)
    assert it.reset_all_variables() is None and it.num_subgraphs() == 1


def test_a_missing_package_names_the_extra_that_brings_it(monkeypatch, front_path):
    import sys
    import tomllib
    from pathlib import Path

    from acl_bridge.models.apps import images

    with open(Path(__file__).resolve().parents[2] / "pyproject.toml", "rb") as f:
        extra = tomllib.load(f)["project"]["optional-dependencies"]["models"]
    assert sorted(r.split(">")[0].split("=")[0] for r in extra) == ["flatbuffers", "pillow", "tflite"]
    monkeypatch.setitem(sys.modules, "tflite", None)  # import tflite raises ImportError
    monkeypatch.setitem(sys.modules, "PIL", None)
    # (this library's exception, whichever class says "missing": the message names the extra)
    with pytest.raises(AclNdarrayError, match=r"needs the 'tflite' package \(pip install \"acl-ndarray\[models\]\"\)"):
        ours.Interpreter(model_path=str(front_path))
    with pytest.raises(AclNdarrayError, match=r"needs Pillow \(pip install \"acl-ndarray\[models\]\""):
        images.load_rgb(str(front_path))


@host_only_under_emulation
@pytest.mark.parametrize("index_type", ["int32", "uint8"])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda e: e[0])
def test_sparsity_parameters_are_tflites(example, index_type):
    """TFLite's sparse constants (its own converter test's examples, tests/models/test_sparsity.py):
    the details (sparsity_parameters included) and the densified value through the graph."""
    tfl = litert()
    data = model_of(example, index_type=index_type)
    theirs, mine = tfl.Interpreter(model_content=data), ours.Interpreter(model_content=data, backend="numpy")
    assert mine.get_tensor_details()[1]["sparsity_parameters"]  # the sparse constant
    same_details(theirs.get_tensor_details()[:len(mine.get_tensor_details())], mine.get_tensor_details(), "tensors")
    x = np.zeros(example[1], np.float32)
    out = {}
    for it in (theirs, mine):
        it.allocate_tensors()
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        out[it] = it.get_tensor(it.get_output_details()[0]["index"])
    np.testing.assert_array_equal(out[mine], out[theirs])
    np.testing.assert_array_equal(out[mine], np.asarray(example[2], np.float32).reshape(example[1]))
