"""The reader's direct table reads (:mod:`acl_bridge.models.format.flatbuffer_tables`) against
the ``tflite`` package's generated classes on the flatbuffers runtime: the same tensors,
constants, quantization and operators on every fetched model, and on damaged copies either a
refusal of this library or the same graph the package's classes read."""

import pytest

tflite = pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.format.flatbuffer_tables import FlatBufferError, Tables  # noqa: E402
from acl_bridge.models.format.tflite_reader import OPTION_FIELDS, read_model  # noqa: E402
from ndarray.errors import AclNdarrayError  # noqa: E402

from acl_bridge.models.apps.fetch import MODEL_FILES  # noqa: E402

from .conftest import host_only_under_emulation, model_file  # noqa: E402
from .test_fuzz_reader import mutations  # noqa: E402

pytestmark = host_only_under_emulation  # pure Python: the host stage runs it


def graph_of_the_package(data: bytes):
    """(tensors, operators, inputs, outputs) of the first subgraph, each field read through
    the package's classes: tensors as (name, shape, type code, constant bytes or None,
    quantization or None), operators as (name, inputs, outputs)."""
    m = tflite.Model.GetRootAs(data, 0)
    sub = m.Subgraphs(0)
    names = []
    for j in range(m.OperatorCodesLength()):
        oc = m.OperatorCodes(j)
        code = max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())
        names.append("CUSTOM:" + oc.CustomCode().decode() if code == 32 else tflite.utils.BUILTIN_OPCODE2NAME[code])
    tensors = []
    for i in range(sub.TensorsLength()):
        t = sub.Tensors(i)
        buffer = m.Buffers(t.Buffer())
        raw = buffer.DataAsNumpy().tobytes() if t.Buffer() and buffer.DataLength() else None
        q = t.Quantization()
        quant = None if q is None or not q.ScaleLength() else (
            tuple(q.ScaleAsNumpy().tolist()), tuple(q.ZeroPointAsNumpy().tolist()) if q.ZeroPointLength() else (),
            q.QuantizedDimension())
        tensors.append(((t.Name() or b"").decode(), tuple(t.ShapeAsNumpy().tolist()) if t.ShapeLength() else (),
                        t.Type(), raw, quant))
    ops = [(names[op.OpcodeIndex()], tuple(op.InputsAsNumpy().tolist()) if op.InputsLength() else (),
            tuple(op.OutputsAsNumpy().tolist()) if op.OutputsLength() else ())
           for op in (sub.Operators(i) for i in range(sub.OperatorsLength()))]
    return tensors, ops, tuple(sub.InputsAsNumpy().tolist()), tuple(sub.OutputsAsNumpy().tolist())


def graph_read(data: bytes):
    """The same fields of :func:`read_model`'s ModelSpec."""
    from acl_bridge.models.format.tflite_reader import TENSOR_TYPES

    codes = {dtype: code for code, dtype in TENSOR_TYPES.items()}
    spec = read_model(data)
    tensors = [(t.name, t.shape, codes[t.dtype], None if t.data is None else t.data.tobytes(),
                None if t.quantization is None else (t.quantization.scale, t.quantization.zero_point,
                                                     t.quantization.quantized_dimension))
               for t in spec.tensors]
    return tensors, [(o.opcode, o.inputs, o.outputs) for o in spec.operators], spec.inputs, spec.outputs


@pytest.mark.parametrize("name", sorted(MODEL_FILES))
def test_every_fetched_model_reads_as_the_package_reads_it(name):
    data = model_file(name).read_bytes()
    assert graph_read(data) == graph_of_the_package(data)


@pytest.mark.parametrize("name", ["face_detection_front", "keyword_spotting_alexa"])
def test_a_damaged_copy_is_refused_or_reads_as_the_package_reads_it(name):
    data = model_file(name).read_bytes()
    outcomes = {"refused": 0, "same": 0}
    for what, damaged in mutations(data, 120, seed=41):
        try:
            mine = graph_read(damaged)
        except AclNdarrayError:
            outcomes["refused"] += 1
            continue
        assert mine == graph_of_the_package(damaged), what
        outcomes["same"] += 1
    assert outcomes["refused"] >= 30  # every truncation at least
    print(f"damaged copies of {name}: {outcomes}")


@pytest.mark.parametrize("buf, call, match", [
    (b"\x08\x00\x00\x00", lambda t: t.root(), "root table at byte 8 \\(4 bytes\\) lies past the end of the 4-byte"),
    (b"\x04\x00\x00\x00\x08\x00\x00\x00", lambda t: t.fields(4), "vtable at byte -4 lies before the start"),
    (b"\x04\x00\x00\x00\x00\x00\x00\x00", lambda t: t.fields(4), "vtable at byte 4 has size 0"),
    # a vtable at 0 (6 bytes: one field at offset 4), its table at 8, the field's vector at 12 + 100
    (b"\x06\x00\x08\x00\x04\x00\x00\x00" b"\x08\x00\x00\x00" b"\x64\x00\x00\x00",
     lambda t: t.numbers(8, t.fields(8), 0, "i"), "vector length at byte 112 \\(4 bytes\\) lies past the end"),
    (b"\x06\x00\x08\x00\x04\x00\x00\x00" b"\x08\x00\x00\x00" b"\x04\x00\x00\x00" b"\x05\x00\x00\x00",
     lambda t: t.numbers(8, t.fields(8), 0, "i"), "vector of 5 elements at byte 20 \\(20 bytes\\) lies past the end"),
])
def test_a_position_outside_the_buffer_is_refused_naming_it(buf, call, match):
    with pytest.raises(FlatBufferError, match=match):
        call(Tables(buf))


def _one_field_table(field: int, code: str, value) -> bytes:
    """A FlatBuffer whose root table stores only field ``field`` (``code``: struct's letter),
    or no field where ``value`` is None."""
    import flatbuffers

    prepend = {"b": "PrependInt8Slot", "B": "PrependUint8Slot", "i": "PrependInt32Slot", "f": "PrependFloat32Slot",
               "?": "PrependBoolSlot"}[code]
    b = flatbuffers.Builder(64)
    b.StartObject(field + 1)
    if value is not None:
        getattr(b, prepend)(field, value, None)
    b.Finish(b.EndObject())
    return bytes(b.Output())


@pytest.mark.parametrize("table", sorted(OPTION_FIELDS))
def test_each_option_field_reads_as_the_package_class_reads_it(table):
    """Every field of OPTION_FIELDS (its number, type and default) against the generated
    class's accessor: a table without the field (the default) and one with only it, set to a
    value unlike the default; the table's union code too."""
    code, fields = OPTION_FIELDS[table]
    assert code == getattr(tflite.BuiltinOptions, table)
    for accessor, (field, letter, default) in fields.items():
        for value in (None, {"b": -3, "B": 3, "i": 70000, "f": 0.375, "?": True}[letter]):
            buf = _one_field_table(field, letter, value)
            obj = getattr(tflite, table)()
            obj.Init(buf, int.from_bytes(buf[:4], "little"))
            tb = Tables(buf)
            pos = tb.root()
            mine = tb.scalar(pos, tb.fields(pos), field, letter, default)
            assert (mine, type(mine)) == (getattr(obj, accessor)(), type(getattr(obj, accessor)())), (accessor, value)
            assert mine == (default if value is None else value), (accessor, value)
