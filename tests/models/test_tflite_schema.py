"""The reader without the ``tflite`` package's ``__init__`` (:mod:`acl_bridge.models.format.tflite_schema`):
in a fresh process, reading a model loads only the package's table of operator names and
imports neither the ``tflite`` package nor the flatbuffers runtime; the ModelSpec is the same
there and here, and the package's classes read the same through the leaner table and the
flatbuffers runtime's own."""

import subprocess
import sys

import pytest

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from .conftest import model_file  # noqa: E402

_CHILD = r"""
import pickle, sys
from acl_bridge.models.format.tflite_reader import read_model
from acl_bridge.models.format import tflite_schema
spec = read_model(sys.argv[1])
loaded = sorted(tflite_schema._LOADED)
package = "tflite" in sys.modules or any(m.startswith("tflite.") for m in sys.modules)
sys.stdout.buffer.write(pickle.dumps((spec, loaded, package, "flatbuffers" in sys.modules)))
"""


def _same(a, b) -> None:
    assert (a.version, a.description, a.inputs, a.outputs, a.md5) == (b.version, b.description, b.inputs, b.outputs,
                                                                         b.md5)
    assert a.operators == b.operators
    assert len(a.tensors) == len(b.tensors)
    for x, y in zip(a.tensors, b.tensors):
        assert (x.index, x.name, x.shape, x.dtype, x.quantization) == (y.index, y.name, y.shape, y.dtype, y.quantization)
        assert (x.data is None) == (y.data is None)
        if x.data is not None:
            assert x.data.dtype == y.data.dtype and x.data.tobytes() == y.data.tobytes(), x


@pytest.mark.parametrize("name", ["face_detection_front", "visual_wake_words"])
def test_a_model_is_read_without_the_package_init_and_reads_the_same(name, monkeypatch):
    import pickle

    import flatbuffers

    from acl_bridge.models.format import tflite_schema
    from acl_bridge.models.format.tflite_reader import read_model

    path = str(model_file(name))
    out = subprocess.run([sys.executable, "-c", _CHILD, path], capture_output=True, check=True).stdout
    spec, loaded, package, runtime = pickle.loads(out)
    assert not package, "reading imported the tflite package"
    # the tables, options included, are read straight from the file (.flatbuffer_tables): only
    # the builtin operators' names are loaded, and no flatbuffers runtime
    assert loaded == ["utils"] and not runtime, (loaded, runtime)
    _same(spec, read_model(path))
    # the package's classes, as loaded here, read through the leaner table; with the flatbuffers
    # runtime's own Table they read the same
    data = open(path, "rb").read()
    lean = tflite_schema.SCHEMA.Model.GetRootAs(data)
    assert type(lean._tab) is tflite_schema.flatbuffers_namespace().table.Table
    monkeypatch.setattr(tflite_schema, "_LOADED", {})
    monkeypatch.setattr(tflite_schema.flatbuffers_namespace(), "table", flatbuffers.table)
    own = tflite_schema.SCHEMA.Model.GetRootAs(data)
    assert type(own._tab) is flatbuffers.table.Table
    for k in range(lean.Subgraphs(0).TensorsLength()):
        a, b = lean.Subgraphs(0).Tensors(k), own.Subgraphs(0).Tensors(k)
        assert (a.Name(), a.Type(), a.Buffer(), a.ShapeAsNumpy().tolist()) == (
            b.Name(), b.Type(), b.Buffer(), b.ShapeAsNumpy().tolist())


def test_a_module_the_package_does_not_have_is_an_import_error():
    from acl_bridge.models.format.tflite_schema import SCHEMA, module

    with pytest.raises(ImportError, match="no module 'NoSuchOptions'"):
        module("NoSuchOptions")
    with pytest.raises(ImportError):
        module("../Model")
    assert isinstance(SCHEMA.__version__, str) and SCHEMA.BUILTIN_OPCODE2NAME[3] == "CONV_2D"
