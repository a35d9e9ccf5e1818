"""The reader's row reads (:class:`acl_bridge.models.format.flatbuffer_tables.Rows`: a tensor or
operator table in a few ``struct`` reads) against its field-by-field reads (:class:`Tables`, the
path that names what is malformed): the same ModelSpec field by field on every fetched model,
constants byte for byte, and on damaged copies the same ModelSpec or the same refusal (type and
message). The field-by-field path is itself checked against the ``tflite`` package's classes
(test_flatbuffer_tables.py) and TFLite's interpreter (test_reader.py)."""

import dataclasses
import struct

import numpy as np
import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.apps.fetch import MODEL_FILES  # noqa: E402
from acl_bridge.models.format import tflite_reader  # noqa: E402
from acl_bridge.models.format.flatbuffer_tables import Irregular, Rows  # noqa: E402
from ndarray.errors import AclNdarrayError  # noqa: E402

from .conftest import host_only_under_emulation, model_file  # noqa: E402
from .test_fuzz_reader import mutations, quantization_mutations  # noqa: E402

pytestmark = host_only_under_emulation  # pure Python: the host stage runs it


def fields(spec):
    """Every field of a ModelSpec as plain values: tensors (constants as dtype, shape, bytes and
    writeable flag; quantization with its values' Python types) and operators (options with
    their values' types)."""
    def tensor(t):
        q = t.quantization
        return (t.index, t.name, t.shape, type(t.shape), t.dtype, t.dtype.str,
                None if t.data is None else (t.data.dtype.str, t.data.shape, t.data.tobytes(), t.data.flags.writeable),
                None if q is None else (q.scale, q.zero_point, q.quantized_dimension,
                                        [type(v) for v in q.scale + q.zero_point]))
    return (spec.version, spec.description, [tensor(t) for t in spec.tensors],
            [(o.index, o.opcode, o.inputs, o.outputs, o.options, [type(v) for _, v in o.options], o.intermediates)
             for o in spec.operators], spec.inputs, spec.outputs, spec.md5)


def outcome(data: bytes, rows: bool):
    """The ModelSpec's fields, or the refusal's type and message."""
    try:
        return fields(tflite_reader._read_model(data, rows))
    except AclNdarrayError as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize("name", sorted(MODEL_FILES))
def test_every_fetched_model_reads_the_same_by_rows(name):
    data = model_file(name).read_bytes()
    assert fields(tflite_reader._read_model(data, True)) == fields(tflite_reader._read_model(data, False))


@pytest.mark.parametrize("name", sorted(MODEL_FILES))
def test_constants_are_read_only_aligned_views_of_the_file(name):
    data = model_file(name).read_bytes()
    whole = np.frombuffer(data, np.uint8)
    constants = [t.data for t in tflite_reader.read_model(data).tensors if t.data is not None]
    assert constants
    for c in constants:
        assert not c.flags.writeable and c.flags.aligned and np.shares_memory(c, whole)


@pytest.mark.parametrize("name", ["face_detection_front", "keyword_spotting_alexa", "visual_wake_words"])
def test_the_row_readers_specs_are_the_dataclasses_own(name):
    """The row readers make TensorSpec, Quantization and OperatorSpec with one ``__dict__`` each
    (tflite_reader._tensor_spec, ...): the same attributes, in the same order, as the dataclass's
    own constructor given the same fields, and no ``__post_init__`` that this would skip."""
    spec = tflite_reader.read_model(model_file(name).read_bytes())
    made = list(spec.tensors) + list(spec.operators) + [t.quantization for t in spec.tensors if t.quantization]
    assert len(made) > len(spec.tensors)
    for obj in made:
        cls = type(obj)
        assert not hasattr(cls, "__post_init__")
        names = [f.name for f in dataclasses.fields(cls)]
        assert list(vars(obj)) == names, cls
        again = cls(**{n: getattr(obj, n) for n in names})
        assert list(vars(again)) == names and all(getattr(again, n) is getattr(obj, n) for n in names)


@pytest.mark.parametrize("name", ["face_detection_front", "keyword_spotting_alexa", "visual_wake_words",
                                  "keyword_spotting_mobilenetv2"])
def test_a_damaged_copy_reads_the_same_or_is_refused_in_the_same_words(name):
    data = model_file(name).read_bytes()
    copies = list(mutations(data, 160, seed=7))
    if name != "face_detection_front":  # the int8 models: their quantization fields damaged too
        copies += list(quantization_mutations(data, 160, seed=11))
    counts = {"same spec": 0, "same refusal": 0}
    for what, damaged in copies:
        by_rows = outcome(damaged, True)
        assert by_rows == outcome(damaged, False), what
        counts["same refusal" if isinstance(by_rows[0], str) else "same spec"] += 1
    assert counts["same refusal"] >= 40 and counts["same spec"] >= 10, counts


def test_an_irregular_tensor_is_read_by_the_field_by_field_path(monkeypatch):
    """A tensor the rows do not take (here every one) is read by the checked path: the same spec."""
    data = model_file("keyword_spotting_alexa").read_bytes()
    monkeypatch.setattr(tflite_reader, "_tensor_row", lambda *a: (_ for _ in ()).throw(Irregular()))
    assert fields(tflite_reader.read_model(data)) == fields(tflite_reader._read_model(data, False))


@pytest.mark.parametrize("buf, call", [
    (b"\x08\x00\x00\x00", lambda r: r.fields(8)),  # the table past the end
    (b"\x04\x00\x00\x00\x08\x00\x00\x00", lambda r: r.fields(4)),  # its vtable before the start
    (b"\x04\x00\x00\x00\x00\x00\x00\x00", lambda r: r.fields(4)),  # a vtable of size 0
    (b"\x04\x00\x00\x00\x05\x00\x00\x00" b"\x00\x00\x00\x00", lambda r: r.fields(4)),  # of odd size
    # a vector's length past the end; its elements past the end
    (b"\x06\x00\x08\x00\x04\x00\x00\x00" b"\x08\x00\x00\x00" b"\x64\x00\x00\x00", lambda r: r.numbers(12, "i")),
    (b"\x06\x00\x08\x00\x04\x00\x00\x00" b"\x08\x00\x00\x00" b"\x04\x00\x00\x00" b"\x05\x00\x00\x00",
     lambda r: r.numbers(12, "i")),
])
def test_rows_refuse_a_position_outside_the_buffer(buf, call):
    with pytest.raises((Irregular, struct.error)):
        call(Rows(buf))
