"""The reader without the ``tflite`` package's ``__init__`` (:mod:`acl_bridge.models.format.tflite_schema`):
in a fresh process, reading a model loads only the generated modules of its option tables and
imports no ``tflite`` package; the ModelSpec is the same there, here, and through the flatbuffers
runtime's own table."""

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
sys.stdout.buffer.write(pickle.dumps((spec, loaded, package)))
"""


def _same(a, b) -> None:
    assert (a.version, a.description, a.inputs, a.outputs, a.sha256) == (b.version, b.description, b.inputs, b.outputs,
                                                                         b.sha256)
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
    spec, loaded, package = pickle.loads(out)
    assert not package, "reading imported the tflite package"
    assert "utils" in loaded  # the builtin operators' names
    # the graph's own tables are read straight from the file (.flatbuffer_tables): only the
    # option tables' classes are loaded
    assert not {"Model", "SubGraph", "Tensor", "Operator", "OperatorCode", "Buffer"} & set(loaded), loaded
    assert len(loaded) < 30, loaded  # of the package's ~190 modules
    _same(spec, read_model(path))
    # the same classes reading through the flatbuffers runtime's own Table read the same
    monkeypatch.setattr(tflite_schema, "_LOADED", {})
    monkeypatch.setattr(tflite_schema._FLATBUFFERS, "table", flatbuffers.table)
    _same(spec, read_model(path))
    assert type(tflite_schema.SCHEMA.Model.GetRootAs(open(path, "rb").read())._tab) is flatbuffers.table.Table


def test_a_module_the_package_does_not_have_is_an_import_error():
    from acl_bridge.models.format.tflite_schema import SCHEMA, module

    with pytest.raises(ImportError, match="no module 'NoSuchOptions'"):
        module("NoSuchOptions")
    with pytest.raises(ImportError):
        module("../Model")
    assert isinstance(SCHEMA.__version__, str) and SCHEMA.BUILTIN_OPCODE2NAME[3] == "CONV_2D"
