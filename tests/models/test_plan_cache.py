"""The lowered-plan cache: a kept plan is exactly what lowering gives (every field, constants
byte by byte, a constant of the model's kept as a view of the file's bytes), a plan that does
not read back as itself is never kept, and every way its file can be wrong is a warning and a
cold start, never an error or a wrong plan."""

import dataclasses
import os

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning import plan_cache as pc  # noqa: E402
from acl_bridge.models.format.model_cache import ModelCacheWarning, read_model_cached  # noqa: E402
from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402
from acl_bridge.user_cache import SEAL  # noqa: E402

from .conftest import model_file  # noqa: E402
from .tiny_tflite import X, one_operator_model  # noqa: E402

# (every fetched model, on the host: tests/models/test_plan_round_trip.py)
MODELS = ["face_detection_front", "face_detection_full_range", "face_landmark", "visual_wake_words",
          "keyword_spotting_alexa", "image_classification", "fingerprint_signature_generator"]


def _lowered(source):
    return plan_model(fold_constant_dequantize(read_model(source)))


def _keep(source, directory):
    """A cold read (nothing kept), the plan lowered and kept; the cache."""
    plan, kept, data, _ = pc.read_plan_cached(source, directory)
    assert plan is None and kept.reason == "no lowered plan kept"
    assert kept.save(_lowered(data)) == "plan kept"
    return kept


def assert_same_fields(a, b, where="plan"):
    """Every field of two plans equal, walked here (not by plan_cache.same_plan, the library's
    own check, which the cache also uses before it keeps a plan): dataclasses field by field,
    sequences and mappings item by item, arrays by dtype, shape and bytes."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            assert_same_fields(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, np.ndarray):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), f"{where}: {a.dtype}{a.shape} != {b.dtype}{b.shape}"
        assert a.tobytes() == b.tobytes(), f"{where}: the bytes differ"
    elif isinstance(a, (tuple, list)):
        assert len(a) == len(b), f"{where}: {len(a)} != {len(b)} items"
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same_fields(x, y, f"{where}[{i}]")
    elif isinstance(a, dict):
        assert list(a) == list(b), f"{where}: keys {list(a)} != {list(b)}"
        for k in a:
            assert_same_fields(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, float) and a != a:
        assert b != b, f"{where}: nan != {b}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


@pytest.mark.parametrize("name", MODELS)
def test_a_kept_plan_is_the_lowered_plan(name, tmp_path):
    check_kept_plan(model_file(name), tmp_path)


def check_kept_plan(path, tmp_path):
    """The plan kept for the model at ``path`` and read back is the plan lowered."""
    _keep(path, tmp_path)
    plan, kept, _, _ = pc.read_plan_cached(path, tmp_path)
    lowered = _lowered(path)
    assert plan is not None
    assert_same_fields(plan, lowered)
    assert pc.same_plan(plan, lowered)  # and the library's own check agrees
    assert plan.steps == tuple(plan.steps) and all(isinstance(s.params, tuple) for s in plan.steps)
    for s in plan.steps:
        for _, value in s.constants:  # read-only, and a model's constant is its tensor's bytes
            assert not value.flags.writeable and value.flags.c_contiguous
    owners = {t.data.ctypes.data for t in plan.model.tensors if t.data is not None}
    shared = [v for s in plan.steps for _, v in s.constants if v.ctypes.data in owners]
    assert shared, "the weights are views of the model's constants, not copies"
    # the same runs in numpy as the lowered plan would (spot check: the step parameters)
    assert [s.params for s in plan.steps] == [s.params for s in lowered.steps]


def test_the_plan_cache_is_keyed_by_the_model_and_the_lowering_code(tmp_path, monkeypatch):
    a = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.5, np.float32)))
    b = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.25, np.float32)))
    ka = _keep(a, tmp_path)
    plan_b, kb, _, _ = pc.read_plan_cached(b, tmp_path)
    assert plan_b is None and kb.path != ka.path
    monkeypatch.setattr(pc, "lowering_code_identity", lambda: "another lowering")
    plan_a, other, _, _ = pc.read_plan_cached(a, tmp_path)
    assert plan_a is None and other.path != ka.path


def test_the_lowering_stamp_covers_every_lowering_and_fallback_module():
    """A rule in any family module (lowering/rules/) changes the stamp: every .py file under
    lowering/ and fallback/, at any depth, is one of the stamped sources."""
    from pathlib import Path

    models = Path(pc.__file__).resolve().parent.parent
    stamped = {(d / name).resolve() for d, names in pc._LOWERING_SOURCES for name in names}
    every = {p.resolve() for room in ("lowering", "fallback") for p in (models / room).rglob("*.py")}
    assert every <= stamped and (models / "lowering" / "rules" / "elementwise.py").resolve() in stamped


def _spoiled(tmp_path, spoil, expect):
    data = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.5, np.float32)))
    kept = _keep(data, tmp_path)
    blob = bytearray(open(kept.path, "rb").read())
    open(kept.path, "wb").write(bytes(spoil(blob)))
    with pytest.warns(ModelCacheWarning, match=expect):
        plan, again, _, _ = pc.read_plan_cached(data, tmp_path)
    assert plan is None and expect in again.reason


@pytest.mark.parametrize("where", ["header", "data", "last byte"])
def test_a_damaged_plan_file_is_a_warning_and_a_cold_start(tmp_path, where):
    def spoil(blob):
        at = {"header": len(pc.MAGIC) + SEAL.size + 5, "data": len(blob) - 9, "last byte": len(blob) - 1}[where]
        blob[at] ^= 0x40
        return blob
    _spoiled(tmp_path, spoil, "checksum")


def test_a_truncated_plan_file_is_a_warning(tmp_path):
    _spoiled(tmp_path, lambda blob: blob[:len(blob) // 2], "ignored")


def test_a_resealed_plan_naming_another_tensor_by_a_negative_index_is_refused(tmp_path):
    """A well-sealed file (checksum good) whose step names tensor -1: Python would take the
    last tensor; the decode refuses it (a warning and a cold start, never a wrong plan)."""
    import json

    from acl_bridge.models.format.model_cache import FORMAT_VERSION
    from acl_bridge.user_cache import seal, unseal

    data = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.5, np.float32)))
    kept = _keep(data, tmp_path)
    header, body = unseal(pc.MAGIC, FORMAT_VERSION, open(kept.path, "rb").read(), "test")
    head = json.loads(bytes(header))
    head["steps"][0][3] = [-1] + head["steps"][0][3][1:]
    open(kept.path, "wb").write(seal(pc.MAGIC, FORMAT_VERSION, json.dumps(head).encode(), bytes(body)))
    with pytest.warns(ModelCacheWarning, match="a step's input is -1"):
        plan, _, _, _ = pc.read_plan_cached(data, tmp_path)
    assert plan is None


def test_a_plan_file_of_another_model_is_never_used(tmp_path):
    a = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.5, np.float32)))
    b = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.25, np.float32)))
    ka, kb = _keep(a, tmp_path / "a"), _keep(b, tmp_path / "b")
    open(kb.path, "wb").write(open(ka.path, "rb").read())  # a's plan under b's name
    with pytest.warns(ModelCacheWarning, match="the file is for"):
        plan, _, _, _ = pc.read_plan_cached(b, tmp_path / "b")
    assert plan is None


def test_a_first_start_keeps_its_plan_without_decoding_it(tmp_path, monkeypatch):
    def decode(*args):
        raise AssertionError("the plan was decoded at save")

    monkeypatch.setattr(pc, "decode", decode)
    data = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.5, np.float32)))
    kept = _keep(data, tmp_path)
    monkeypatch.undo()
    plan, _, _, _ = pc.read_plan_cached(data, tmp_path)
    assert pc.same_plan(plan, _lowered(data)) and kept.path.exists()


def test_a_model_value_json_gives_back_otherwise_is_not_kept(tmp_path):
    """An operator option holding a tuple (JSON gives back a list): the head written does not
    parse back equal to itself, so the plan is not kept (its model would come back changed)."""
    data = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.5, np.float32)))
    _, kept, _, _ = pc.read_plan_cached(data, tmp_path)
    lowered = _lowered(data)
    op = lowered.model.operators[0]
    model = dataclasses.replace(lowered.model, operators=(dataclasses.replace(op, options=op.options + (("odd", (1, 2)),)),))
    assert kept.save(dataclasses.replace(lowered, model=model)) == "plan not kept: it does not read back as itself"
    assert not os.path.exists(kept.path)


def test_a_plan_that_does_not_read_back_as_itself_is_not_kept(tmp_path):
    data = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.5, np.float32)))
    plan, kept, _, _ = pc.read_plan_cached(data, tmp_path)
    lowered = _lowered(data)
    step = lowered.steps[0]
    odd = dataclasses.replace(lowered, steps=(dataclasses.replace(step, params=step.params + (("odd", np.float32(1)),)),))
    assert "no plain-value form" in kept.save(odd)  # a numpy scalar: JSON has no form for it
    listed = dataclasses.replace(lowered, steps=(dataclasses.replace(step, params=step.params + (("odd", [1, 2]),)),))
    assert "no plain-value form" in kept.save(listed)  # a list would come back a tuple
    nan = dataclasses.replace(lowered, steps=(dataclasses.replace(step, params=step.params + (("odd", float("nan")),)),))
    assert kept.save(nan) == "plan not kept: it does not read back as itself"  # NaN equals nothing, itself included
    assert not os.path.exists(kept.path)


def test_long_runs_of_numbers_are_kept_as_binary_and_come_back_exact(tmp_path):
    """Per-channel scales (hundreds of floats in an int8 model's tensors and step parameters)
    go to the data part as float64 / int64: the same Python floats and ints come back."""
    from acl_bridge.models.format.model_cache import _Data, numbers

    data = _Data()
    floats = tuple(float(np.float32(x)) * 1e-3 for x in range(1, 40)) + (-0.0, 1e300, 5e-324)
    ints = tuple(range(-20, 20)) + (2 ** 62,)
    short = (0.5, 2)
    packed = [data.numbers(v) for v in (floats, ints, short, (1, 2.5) * 10)]
    assert [type(p) for p in packed] == [dict, dict, list, list]  # short or mixed: inline
    blob = b"".join(data.chunks)
    back = [numbers(p, blob) for p in packed]
    assert back[0] == floats and all(type(x) is float for x in back[0])
    assert [str(x) for x in back[0]] == [str(x) for x in floats]  # -0.0 stays -0.0
    assert back[1] == ints and all(type(x) is int for x in back[1])
    assert data.numbers(floats) == packed[0] and len(data.chunks) == 4  # a run written once
    memo = {}
    assert numbers(packed[0], blob, memo) is numbers(packed[0], blob, memo)  # and read once
    with pytest.raises(ValueError):
        numbers({"f8": [len(blob), 2]}, blob)  # past the data


def test_a_cache_option_false_keeps_nothing(tmp_path):
    data = one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, np.full((1, 2, 2, 3), 0.5, np.float32)))
    plan, kept, got, _ = pc.read_plan_cached(data, False)
    assert plan is None and kept is None and got == data
    spec, report = read_model_cached(got, False)
    assert report.state == "off"
