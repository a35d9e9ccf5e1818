"""Malformed models: truncated and byte-mutated copies of a real model must end in this
library's own exception (AclNdarrayError) or in a plan, never in anything else. The int8
models get damaged quantization fields too (scales, zero points, their vector lengths,
quantized_dimension), found through the flatbuffer's own tables."""

import os
import struct

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.planning.tflite_plan import plan_model  # noqa: E402
from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model  # noqa: E402
from ndarray.errors import AclNdarrayError  # noqa: E402

from .conftest import host_only_under_emulation, model_file  # noqa: E402


def mutations(data: bytes, count: int, seed: int = 13):
    """``count`` damaged copies: truncations, and 1-8 random bytes overwritten anywhere, in
    the first 4 KiB (root table, vtables, vectors) or in the last 4 KiB."""
    rng = np.random.default_rng(seed)
    n = len(data)
    for k in range(count):
        kind = k % 4
        if kind == 0:
            yield f"truncated to {int(rng.integers(0, n))}", data[: int(rng.integers(0, n))]
            continue
        lo, hi = {1: (0, n), 2: (0, min(n, 4096)), 3: (max(0, n - 4096), n)}[kind]
        b = bytearray(data)
        where = rng.integers(lo, hi, size=int(rng.integers(1, 9)))
        for w in where:
            b[int(w)] = int(rng.integers(0, 256))
        yield f"bytes {sorted(int(w) for w in where)} overwritten", bytes(b)


def load(data: bytes):
    return plan_model(fold_constant_dequantize(read_model(data)))


def read_and_plan(what: str, data: bytes):
    """(outcome, the library's message or "") of reading and planning a damaged model:
    "plan", "refused by the reader" or "refused by the plan"; any other exception fails the
    test, naming the damage."""
    try:
        model = read_model(data)
    except AclNdarrayError as e:
        return "refused by the reader", str(e)
    except Exception as e:  # pragma: no cover - the failure these tests exist for
        pytest.fail(f"{what}: {type(e).__name__}: {e}")
    try:
        plan_model(fold_constant_dequantize(model))
    except AclNdarrayError as e:
        return "refused by the plan", str(e)
    except Exception as e:  # pragma: no cover - the failure these tests exist for
        pytest.fail(f"{what}: {type(e).__name__}: {e}")
    return "plan", ""


# The reader and planner are pure Python, identical on every machine: the host run (the test
# command's host stage) feeds 300 damaged copies of each model; the emulated images, where
# Python runs 20-30x slower, a first 60 of the same sequence.
COUNT = 60 if os.environ.get("HYPOTHESIS_PROFILE") == "emulated" else 300


@pytest.mark.parametrize("name", ["face_detection_front",
                                  pytest.param("face_detection_full_range", marks=host_only_under_emulation)])
def test_three_hundred_damaged_models_end_in_our_exception_or_a_plan(name):
    data = model_file(name).read_bytes()
    outcomes = {"plan": 0, "error": 0}
    for what, damaged in mutations(data, COUNT):
        try:
            load(damaged)
            outcomes["plan"] += 1
        except AclNdarrayError:
            outcomes["error"] += 1
        except Exception as e:  # pragma: no cover - the failure this test exists for
            pytest.fail(f"{what}: {type(e).__name__}: {e}")
    assert outcomes["error"] >= COUNT // 4  # every truncation at least
    print(f"damaged models: {outcomes}")


def quantization_fields(data: bytes):
    """Per quantized tensor of the first subgraph, its fields as (field, byte offset, size):
    each scale (float32) and zero point (int64), the length prefixes of their vectors, and
    quantized_dimension (int32) where the file stores it."""
    import tflite

    model = tflite.Model.GetRootAs(data, 0)
    sub = model.Subgraphs(0)
    fields = []
    for i in range(sub.TensorsLength()):
        q = sub.Tensors(i).Quantization()
        if q is None:
            continue
        tab, fields_of_tensor = q._tab, []
        for name, slot, size, n in (("scale", 8, 4, q.ScaleLength()), ("zero_point", 10, 8, q.ZeroPointLength())):
            o = tab.Offset(slot)
            if o:
                start = tab.Vector(o)
                fields_of_tensor.append((f"tensor {i} {name} length", start - 4, 4))
                fields_of_tensor += [(f"tensor {i} {name}[{k}]", start + k * size, size) for k in range(n)]
        o = tab.Offset(16)
        if o:
            fields_of_tensor.append((f"tensor {i} quantized_dimension", tab.Pos + o, 4))
        if fields_of_tensor:
            fields.append(fields_of_tensor)
    return fields


def quantization_mutations(data: bytes, count: int, seed: int = 29):
    """``count`` copies with one quantization field of one tensor (both drawn at random) damaged: a scale set to 0, a negative, NaN,
    infinity or 1 + 1e-5 times itself (a bias off TFLite's tolerance); a zero point out of or
    within range; a vector length or quantized_dimension replaced; or random bytes over it."""
    rng = np.random.default_rng(seed)
    fields = quantization_fields(data)
    for k in range(count):
        of_tensor = fields[int(rng.integers(0, len(fields)))]
        name, at, size = of_tensor[int(rng.integers(0, len(of_tensor)))]
        b = bytearray(data)
        kind = int(rng.integers(0, 4))
        if kind == 0:  # random bytes
            new = bytes(int(v) for v in rng.integers(0, 256, size))
        elif size == 4 and name.endswith("]"):  # a scale
            old = struct.unpack_from("<f", data, at)[0]
            new = struct.pack("<f", [0.0, -abs(old), float("nan"), float("inf"), old * (1 + 1e-5)][int(rng.integers(0, 5))])
        elif size == 8:  # a zero point
            new = struct.pack("<q", [int(rng.integers(-300, 300)), 1 << 40, -(1 << 31) - 1][int(rng.integers(0, 3))])
        else:  # a vector length or quantized_dimension
            new = struct.pack("<i", int(rng.integers(-2, 2 * 96)))
        b[at:at + size] = new
        yield f"{name} (bytes {at}-{at + size - 1}) set to {new.hex()}", bytes(b)


# Under emulation one int8 model (the reader is the same pure Python; 5 models would add ~30 s)
INT8_MODELS = ["image_classification"] if os.environ.get("HYPOTHESIS_PROFILE") == "emulated" else [
    "visual_wake_words", "image_classification", "keyword_spotting", "keyword_spotting_alexa",
    "fingerprint_signature_generator"]


@pytest.mark.parametrize("name", INT8_MODELS)
def test_three_hundred_damaged_int8_models_end_in_our_exception_or_a_plan(name):
    """Half of the copies damaged anywhere (as the float models), half in their quantization
    fields; of those, the reader itself refuses a good part by naming the field."""
    data = model_file(name).read_bytes()
    half = COUNT // 2
    outcomes = {"plan": 0, "refused by the reader": 0, "refused by the plan": 0, "quantization field named": 0}
    damaged = list(mutations(data, half)) + list(quantization_mutations(data, COUNT - half))
    for k, (what, copy) in enumerate(damaged):
        outcome, message = read_and_plan(what, copy)
        outcomes[outcome] += 1
        if outcome == "refused by the reader":
            outcomes["quantization field named"] += k >= half and "quantization" in message
    print(f"damaged {name}: {outcomes}")
    assert outcomes["refused by the reader"] >= half // 4  # every truncation at least
    assert outcomes["quantization field named"] >= (COUNT - half) // 4
