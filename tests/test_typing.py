"""Issue 16, part 7: ndarray/ ships py.typed and its public API passes ``mypy --strict``.
Skipped with the reason where mypy is not installed (pip install mypy)."""

import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_py_typed_marker_is_shipped():
    import ndarray

    # in the imported package: the installed one where the tests run against an install
    assert os.path.isfile(os.path.join(os.path.dirname(ndarray.__file__), "py.typed"))
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        assert '"py.typed"' in f.read()  # package data, so installs carry it


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed (pip install mypy)")
def test_ndarray_passes_mypy_strict():
    # picture.py is leaving ndarray/ (issue 11): it is not part of the typed API
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "ndarray",
                          "--exclude", r"ndarray/picture\.py"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


@pytest.mark.skipif(importlib.util.find_spec("pdoc") is None, reason="pdoc is not installed (pip install pdoc)")
def test_api_reference_builds(tmp_path):
    # the command of docs/api.md, into a temporary folder
    modules = ["ndarray", "ndarray.array", "ndarray.descriptor", "ndarray.numpy_protocol", "ndarray.strides",
               "ndarray.shape_info", "ndarray.dtypes", "ndarray.layout_rules", "ndarray.memory", "ndarray.errors", "ndarray.formats", "acl_bridge", "!ndarray.picture"]
    out = subprocess.run([sys.executable, "-m", "pdoc", "-o", str(tmp_path), *modules], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    for page in ("ndarray.html", "ndarray/array.html", "ndarray/formats/xla.html", "ndarray/formats/dlpack.html"):
        assert (tmp_path / page).is_file(), page
    assert "padding_is_free" in (tmp_path / "ndarray" / "array.html").read_text(encoding="utf-8")
