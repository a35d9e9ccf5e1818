"""The command line (acl_bridge.cli): every worked example of the source documents through
``describe``, the error contract (one line on stderr, exit 2 for bad input, 1 for runtime
errors), ``info`` never crashing, the ``demo`` placeholder, and one real subprocess run."""

import importlib.util
import importlib.machinery
import json
import os
import re
import subprocess
import sys
import types
from pathlib import Path

import pytest

from acl_bridge import cli

REPO = Path(__file__).resolve().parents[1]


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def describe_json(capsys, *argv):
    code, out, err = run(capsys, "describe", "--json", *argv)
    assert (code, err) == (0, ""), err
    return json.loads(out)


def field(out: str, name: str) -> str:
    """The value printed after ``name`` on its line of the text output."""
    m = re.search(rf"^\s*{re.escape(name)}\s+(.+)$", out, re.M)
    assert m, f"no line {name!r} in:\n{out}"
    return m.group(1).strip()


# ---------------------------------------------------------------------------- ADR (seeds/004)
def test_adr_dense_2x2x5x5(capsys):
    code, out, err = run(capsys, "describe", "--shape", "2,2,5,5", "--dtype", "float32")
    assert code == 0 and err == ""
    assert field(out, "tensor_shape") == "5,5,2,2"
    assert field(out, "strides_in_bytes") == "4,20,100,200"
    assert field(out, "total_size_in_bytes") == "400"
    assert field(out, "strides") == "50,25,5,1 elements = 200,100,20,4 bytes"
    assert field(out, "ews") == "1"
    assert field(out, "has_padded_buffer") == "no"


def test_adr_padded_right1_bottom1(capsys):
    code, out, _ = run(capsys, "describe", "--shape", "2,2,5,5", "--paddings", "0,0,1,1", "--dtype", "float32")
    assert code == 0
    assert field(out, "strides_in_bytes") == "4,24,144,288"
    assert field(out, "total_size_in_bytes") == "576"
    assert field(out, "padding") == "top=0 right=1 bottom=1 left=0"
    assert field(out, "alloc_size") == "144 elements = 576 bytes"
    assert field(out, "has_padded_buffer") == "yes"
    assert field(out, "ews") == "0"
    assert field(out, "contiguous") == "c: no, f: no"
    assert field(out, "cells") == "144 = 100 holding elements + 44 padding"
    # the memory map: 6 cells per row, padding column and row, element 0 marked
    assert " 0 | [0]   1   2   3   4   ." in out
    assert "30 |   .   .   .   .   .   ." in out


def test_adr_padded_same_as_strides_and_as_acl_padding(capsys):
    by_paddings = describe_json(capsys, "--shape", "2,2,5,5", "--paddings", "0,0,1,1")
    by_strides = describe_json(capsys, "--shape", "2,2,5,5", "--strides", "72,36,6,1", "--alloc-size", "144", "--offset", "0")
    by_acl = describe_json(capsys, "--shape", "2,2,5,5", "--acl-padding", "0,1,1,0")
    for facts in (by_strides, by_acl):
        assert facts["acl"] == by_paddings["acl"]
        assert facts["paddings"] == [0, 0, 1, 1]
        assert facts["cells"] == by_paddings["cells"]


def test_acl_auto_padding(capsys):
    facts = describe_json(capsys, "--shape", "2,2,5,5", "--acl-auto-padding")
    acl = facts["acl"]
    assert acl["padding"] == {"top": 4, "right": 36, "bottom": 4, "left": 4}
    assert acl["strides_in_bytes"] == [4, 180, 2340, 4680]
    assert acl["offset_first_element_in_bytes"] == 736
    assert acl["total_size_in_bytes"] == 9360
    assert facts["cells"]["element0_offset"] == 184 and facts["cells"]["columns"] == 45


def test_padding_offsets_move_element0(capsys):
    code, out, _ = run(capsys, "describe", "--shape", "2,3,4", "--paddings", "0,2,2", "--padding-offsets", "0,1,1")
    assert code == 0
    assert field(out, "offset") == "7 elements = 28 bytes"
    assert field(out, "padding") == "top=1 right=1 bottom=1 left=1"
    assert " 6 |   . [0]   1   2   3   ." in out


# ---------------------------------------------------------------------------- DirectML (seeds/000)
def test_directml_nhwc_1x1x3x5(capsys):
    facts = describe_json(capsys, "--directml", "FLOAT32", "--sizes", "1,1,3,5", "--strides", "15,1,5,1")
    assert facts["directml"]["strides"] == [15, 1, 5, 1]
    assert facts["directml"]["total_tensor_size_in_bytes"] == 60
    assert facts["strides"] == [15, 1, 5, 1] and facts["alloc_size"] == 15
    assert facts["cells"]["padding"] == 0
    assert facts["acl"]["tensor_shape"] == [5, 3, 1, 1]


def test_directml_padded_2x3_height_stride_5(capsys):
    code, out, err = run(capsys, "describe", "--directml", "UINT8", "--sizes", "2,3", "--strides", "5,1", "--total-size", "10")
    assert code == 0 and err == ""
    # A B C x x D E F x x
    assert "0 | [0]   1   2   .   ." in out
    assert "5 |   3   4   5   .   ." in out
    assert field(out, "directml total size") == "10 bytes (minimum 8)"
    assert field(out, "padding") == "top=0 right=2 bottom=0 left=0"
    assert field(out, "paddings") == "0,2"


def test_directml_dhw_element_h_at_7(capsys):
    code, out, _ = run(capsys, "describe", "--directml", "UINT8", "--sizes", "2,2,3", "--index", "1,0,1")
    assert code == 0
    assert field(out, "element (1,0,1)") == "at offset 7"
    assert field(out, "directml strides") == "implicit (packed)"


# ---------------------------------------------------------------------------- XLA (seeds/002)
def test_xla_tiled_3x5(capsys):
    pytest.importorskip("ndarray.formats.xla")
    code, out, err = run(capsys, "describe", "--xla", "F32[3,5]{1,0:T(2,2)}", "--index", "2,3")
    assert code == 0 and err == ""
    assert field(out, "element (2,3)") == "at offset 17"
    assert field(out, "buffer_size") == "24 elements = 96 bytes"
    assert field(out, "tiled_shape") == "2,3,2,2"
    assert field(out, "cells") == "24 = 15 holding elements + 9 padding"
    assert "ShapeDescriptor: not representable: NotRepresentableError" in out


def test_xla_untiled_maps_to_acl(capsys):
    pytest.importorskip("ndarray.formats.xla")
    facts = describe_json(capsys, "--xla", "F32[2,3]{1,0}")
    assert facts["shape_descriptor"]["acl"]["strides_in_bytes"] == [4, 12]


# ---------------------------------------------------------------------------- not representable
def test_unrepresentable_layout_prints_the_reason(capsys):
    code, out, _ = run(capsys, "describe", "--shape", "2,3", "--strides", "-3,1", "--offset", "3", "--no-map")
    assert code == 0
    assert re.search(r"^ACL mapping: not representable: NotRepresentableError: strides_in_bytes\[0\] is -12", out, re.M)


# ---------------------------------------------------------------------------- pictures
@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_describe_out_writes_a_picture(capsys, tmp_path, suffix):
    path = tmp_path / f"map.{suffix}"
    code, out, err = run(capsys, "describe", "--shape", "2,2,5,5", "--paddings", "0,0,1,1", "--out", str(path))
    assert code == 0 and err == ""
    assert f"wrote {suffix.upper()} {path}" in out
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") if suffix == "png" else data.count(b'class="padding"') == 44


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "argv, message",
    [
        (["describe", "--shape", "2,x"], r"--shape is '2,x', expected comma-separated integers"),
        (["describe", "--shape", "2,3", "--strides", "1,2,3"], r"InvalidLayoutError: strides has 3 entries but shape has rank 2"),
        (["describe", "--shape", "2,3", "--paddings", "1,1", "--strides", "4,1"], r"not several"),
        (["describe"], r"exactly one of --shape, --xla, --directml"),
        (["describe", "--shape", "2", "--xla", "F32[2]"], r"exactly one of"),
        (["describe", "--directml", "FLOAT32"], r"--directml needs --sizes"),
        (["describe", "--directml", "FLOAT99", "--sizes", "2"], r"data_type is 'FLOAT99'"),
        (["describe", "--shape", "2,3", "--index", "2,0"], r"index\[0\] is 2"),
        (["describe", "--shape", "2,3", "--out", "map.jpg"], r"expected a file name ending in .png or .svg"),
        (["describe", "--shape", "2,3", "--padings", "1"], r"unrecognized arguments: --padings"),
        (["bogus"], r"invalid choice: 'bogus'"),
        (["describe", "--xla", "(F32[2], S32[])"], r"UnsupportedOptionError: --xla is .*a tuple of 2 shapes; describe takes one"),
        (["info", "--bogus"], r"unrecognized arguments: --bogus"),
        (["fetch", "--image-wheels", "--no-wheels"], r"not allowed with argument"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("acl-ndarray: error: ")
    assert re.search(message, err), err
    assert "Traceback" not in err


def test_xla_bad_input(capsys):
    pytest.importorskip("ndarray.formats.xla")
    code, _, err = run(capsys, "describe", "--xla", "F32[3,5]{1,0:T(0)}")
    assert code == 2 and err.count("\n") == 1 and "tiles[0] (0) has 0" in err


def test_traceback_on_request(capsys):
    code, _, err = run(capsys, "describe", "--shape", "2,x", "--traceback")
    assert code == 2
    assert "Traceback" in err and err.rstrip().splitlines()[-1].startswith("acl-ndarray: error: ")


def test_runtime_error_is_exit_1(capsys, tmp_path):
    code, out, err = run(capsys, "describe", "--shape", "2,3", "--out", str(tmp_path / "missing" / "map.png"))
    assert code == 1
    assert out == ""  # the --out folder is checked before anything is done
    assert err == (f"acl-ndarray: error: {tmp_path / 'missing'}: the folder of --out "
                   f"'{tmp_path / 'missing' / 'map.png'}' does not exist\n")


def test_an_unexpected_exception_is_one_line_exit_1(capsys, monkeypatch):
    def bug(*_):
        raise KeyError("oops")

    monkeypatch.setitem(cli.COMMANDS, "info", bug)
    code, out, err = run(capsys, "info")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "unexpected KeyError: 'oops'" in err and "Traceback" not in err


@pytest.mark.parametrize("error, code", [
    ("ndarray.errors:InvalidLayoutError", 2), ("ndarray.errors:NotRepresentableError", 2),
    ("ndarray.errors:ArgumentTypeError", 2), ("ndarray.errors:UnsupportedOptionError", 2),
    ("ndarray.errors:IndexOutOfRangeError", 2), ("ndarray.errors:ReadOnlyError", 2),
    ("acl_bridge.models.apps.images:ImageError", 2), ("acl_bridge.models.format.tflite_reader:ModelFormatError", 2),
    ("acl_bridge.models.format.tflite_reader:UnsupportedModelError", 2),
    ("acl_bridge.models.apps.input_files:InputFileError", 2),
    ("acl_bridge.errors:AclError", 1), ("acl_bridge.errors:AclUnavailableError", 1),
    ("acl_bridge.errors:AclOutOfMemoryError", 1), ("acl_bridge.models.apps.fetch:FetchError", 1),
    ("ndarray.errors:MissingPackageError", 1), ("acl_bridge.demo:DemoError", 1),
    ("builtins:PermissionError", 1), ("builtins:MemoryError", 1), ("builtins:ValueError", 1),
])
def test_exit_code_for_each_exception_type(error, code):
    """The one mapping: the library's input errors 2, everything else 1."""
    import importlib

    module, name = error.split(":")
    cls = getattr(importlib.import_module(module), name)
    assert cli.exit_code_for(cls("x")) == code
    assert cli.exit_code_for(cli.UsageError("x")) == 2


def test_version(capsys):
    from acl_bridge._version import __version__

    code, out, err = run(capsys, "--version")
    assert (code, out, err) == (0, f"acl-ndarray {__version__}\n", "")
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'version = { attr = "acl_bridge._version.__version__" }' in pyproject  # one place


def test_help_is_exit_0(capsys):
    code, out, err = run(capsys, "describe", "--help")
    assert code == 0 and "--shape" in out and err == ""


def test_huge_layout_costs_what_it_prints(capsys, monkeypatch):
    """A 100000x100000 layout: facts and cell counts without per-cell arrays (issue 26 died with
    MemoryError); the text map says it is too large instead of being built."""
    from acl_bridge import memory_map

    def no_map(*_a, **_k):
        raise AssertionError("a memory map was built")

    monkeypatch.setattr(memory_map, "descriptor_map", no_map)
    facts = describe_json(capsys, "--shape", "100000,100000", "--no-map")
    assert facts["cells"] == {"total": 10**10, "elements": 10**10, "padding": 0, "shared": 0, "columns": 64,
                              "element0_offset": 0}
    code, out, err = run(capsys, "describe", "--shape", "100000,100000")
    assert code == 0 and err == ""
    assert field(out, "cells") == "10000000000 = 10000000000 holding elements + 0 padding"
    assert "(10000000000 cells: too many to print, expected at most 4096" in out


def test_huge_picture_is_refused_before_allocating(capsys, tmp_path):
    code, out, err = run(capsys, "describe", "--shape", "100000,100000", "--out", str(tmp_path / "m.png"))
    assert (code, out) == (2, "") and "NotRepresentableError: the allocation has 10000000000 cells, expected at most" in err


@pytest.mark.parametrize("argv", [
    ["--shape", "2,2,5,5", "--paddings", "0,0,1,1"], ["--shape", "4,3", "--strides", "1,4", "--alloc-size", "16"],
    ["--shape", "3,4", "--strides", "0,1"], ["--directml", "UINT8", "--sizes", "2,3", "--strides", "5,1"],
    ["--xla", "F32[3,5]{1,0:T(2,2)}"], ["--shape", "2,2,5,5", "--acl-auto-padding"],
])
def test_cell_counts_without_a_map_equal_the_map(capsys, argv):
    """describe's counts (from the layout alone) are the memory map's, cell by cell."""
    from acl_bridge import memory_map

    facts, build = cli._describe(cli.build_parser().parse_args(["describe", *argv]))
    m = build()
    assert facts["cells"] == {"total": m.alloc_size, "elements": m.element_cells, "padding": m.padding_cells,
                              "shared": m.shared_cells, "columns": m.columns, "element0_offset": m.element0}
    assert memory_map.too_many_cells(m.alloc_size) is None


def test_broken_pipe_exits_0_quietly(tmp_path):
    """`acl-ndarray describe ... | head`: the reader left; exit 0 and nothing on stderr."""
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader is gone before the first line
    try:
        proc = subprocess.run([sys.executable, "-m", "acl_bridge", "describe", "--shape", "64,64"],
                              stdout=write_end, stderr=subprocess.PIPE, text=True, cwd=str(tmp_path), env=env,
                              timeout=120)
    finally:
        os.close(write_end)
    assert (proc.returncode, proc.stderr) == (0, "")


# ---------------------------------------------------------------------------- info and demo
INFO_KEYS = ("acl-ndarray", "python", "numpy", "machine", "ACL", "threads", "CPU features", "Arm NN", "OpenCL")


def test_info_never_crashes(capsys):
    code, out, err = run(capsys, "info")
    assert code == 0
    for key in INFO_KEYS:
        assert re.search(rf"^{re.escape(key)}\s", out, re.M), out


def test_info_json(capsys):
    from acl_bridge._version import __version__

    code, out, err = run(capsys, "info", "--json")
    assert code == 0 and err == ""
    facts = json.loads(out)
    assert set(INFO_KEYS) <= set(facts) and all(isinstance(v, str) for v in facts.values())
    assert facts["acl-ndarray"] == __version__


def test_info_survives_a_failing_native_layer(capsys, monkeypatch):
    from acl_bridge import native

    def boom(*_):
        raise RuntimeError("simulated failure")

    monkeypatch.setattr(native, "native_available", lambda: (True, "pretend"))
    monkeypatch.setattr(native, "acl_version", boom)
    monkeypatch.setattr(native, "cpu_report", boom)
    monkeypatch.setattr(native, "num_threads", boom)
    code, out, _ = run(capsys, "info")
    assert code == 0
    assert "unavailable (RuntimeError: simulated failure)" in out


def test_info_reports_why_native_is_missing(capsys, monkeypatch):
    from acl_bridge import native

    monkeypatch.setattr(native, "native_available", lambda: (False, "no ACL here"))
    code, out, _ = run(capsys, "info")
    assert code == 0 and "native layer not available: no ACL here" in out


def test_demo_without_the_demo_module_says_why(capsys, monkeypatch):
    """An install without acl_bridge.demo (as a pure-Python install would be): one line on
    stderr naming the missing module and the native layer's reason, exit 1. The module exists
    in this checkout, so its absence is simulated (the test runs in every stage)."""
    import acl_bridge

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a, **k: None if name == "acl_bridge.demo" else real_find_spec(name, *a, **k))
    monkeypatch.setattr(acl_bridge, "native_available", lambda: (False, "no ACL here"))
    code, out, err = run(capsys, "demo")
    assert code == 1 and out == ""
    assert err == ("acl-ndarray demo: the demo needs the native ACL layer and acl_bridge.demo, "
                   "which is not installed (no ACL here)\n")
    monkeypatch.setattr(acl_bridge, "native_available", lambda: (True, ""))
    code, out, err = run(capsys, "demo")
    assert (code, out) == (1, "") and err.endswith("which is not installed\n")


def test_demo_parses_with_the_command_lines_parser(capsys, monkeypatch):
    """acl_bridge.demo adds its options to the CLI's own ``demo`` subparser and runs on the
    parsed options; --traceback anywhere stays the CLI's."""
    calls = []
    fake = types.ModuleType("acl_bridge.demo")
    fake.__spec__ = importlib.machinery.ModuleSpec("acl_bridge.demo", None)
    fake.add_arguments = lambda p: p.add_argument("--size")
    fake.execute = lambda ns, out: calls.append(ns.size) or 0
    monkeypatch.setitem(sys.modules, "acl_bridge.demo", fake)
    code, _, _ = run(capsys, "demo", "--size", "8", "--traceback")
    assert code == 0 and calls == ["8"]


def test_main_module_exposes_main():
    import acl_bridge.__main__ as entry

    assert entry.main is cli.main


# ---------------------------------------------------------------------------- subprocess
def test_python_m_acl_bridge_describe(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    png = tmp_path / "adr.png"
    proc = subprocess.run(
        [sys.executable, "-m", "acl_bridge", "describe", "--shape", "2,2,5,5", "--paddings", "0,0,1,1",
         "--out", str(png)],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert field(proc.stdout, "strides_in_bytes") == "4,24,144,288"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run(
        [sys.executable, "-m", "acl_bridge", "describe", "--shape", "2,x"],
        cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=120,
    )
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stdout == ""


# ---------------------------------------------------------------------------- fetch
def test_fetch_cache_is_per_user(monkeypatch, tmp_path):
    """ACL_NDARRAY_CACHE, else $XDG_CACHE_HOME/acl-ndarray, else ~/.cache/acl-ndarray (no root
    needed); without ACL_NDARRAY_CACHE the system-wide cache of docker/emulate.sh is read too."""
    from acl_bridge.models.apps import fetch

    monkeypatch.delenv("ACL_NDARRAY_CACHE", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert fetch.cache_root() == tmp_path / "home" / ".cache" / "acl-ndarray"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")  # the XDG spec: relative paths are invalid
    assert fetch.cache_root() == tmp_path / "home" / ".cache" / "acl-ndarray"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert fetch.cache_root() == tmp_path / "xdg" / "acl-ndarray"
    assert fetch.search_roots() == (tmp_path / "xdg" / "acl-ndarray", fetch.SYSTEM_CACHE)
    monkeypatch.setenv("ACL_NDARRAY_CACHE", str(tmp_path / "explicit"))
    assert fetch.search_roots() == (tmp_path / "explicit",)


def test_fetch_into_an_unwritable_cache_is_one_line_exit_1(capsys, monkeypatch, tmp_path):
    from acl_bridge.models.apps import fetch

    blocker = tmp_path / "a-file"
    blocker.write_text("")  # a file where the cache folder should be: unwritable even for root
    monkeypatch.setenv("ACL_NDARRAY_CACHE", str(blocker / "cache"))
    monkeypatch.setattr(fetch, "_pip", lambda *a, **k: pytest.fail("pip ran before the cache was checked"))
    code, out, err = run(capsys, "fetch")
    assert (code, out) == (1, "")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"acl-ndarray: error: FetchError: cannot write the cache {blocker / 'cache'}/models/")
    assert "set ACL_NDARRAY_CACHE to a folder you can write" in err
    # as docker/emulate.sh runs it: a plain script (the installed one where the tests run against an install)
    script = subprocess.run([sys.executable, fetch.__file__], capture_output=True,
                            text=True, timeout=120, env=dict(os.environ, ACL_NDARRAY_CACHE=str(blocker / "cache")))
    assert script.returncode == 1 and script.stdout == "" and script.stderr.count("\n") == 1
    assert script.stderr.startswith("fetch: error: cannot write the cache")


@pytest.mark.parametrize("argv, wheels", [([], False), (["--no-wheels"], False), (["--image-wheels"], True)])
def test_fetch_is_host_only_unless_the_images_need_wheels(capsys, monkeypatch, argv, wheels):
    """The aarch64 wheels (34 MB) only with --image-wheels, which docker/emulate.sh passes."""
    from acl_bridge.models.apps import fetch

    calls = []
    monkeypatch.setattr(fetch, "ensure_pinned", lambda pin, progress=False: calls.append(pin.requirement) or Path("/m"))
    monkeypatch.setattr(fetch, "ensure_wheels",
                        lambda v, progress=False, machine="aarch64": calls.append((v, machine)) or Path(f"/w{v}{machine}"))
    code, out, err = run(capsys, "fetch", "--json", *argv)
    assert (code, err) == (0, "")
    where = json.loads(out)
    assert list(where)[:3] == ["models", "photograph", "quantized models"]
    assert calls[:3] == [fetch.FACE_DETECTION.requirement, fetch.PHOTOGRAPH.requirement, fetch.QUANTIZED.requirement]
    pairs = [(v, m) for v, machines in fetch.IMAGE_MACHINES.items() for m in machines]
    assert (calls[3:] == pairs and len(pairs) > len(fetch.IMAGE_WHEELS)) == wheels and (len(where) > 3) == wheels
    emulate = (REPO / "docker" / "emulate.sh").read_text()
    assert 'python3 "$REPO/acl_bridge/models/apps/fetch.py" --image-wheels' in emulate


def test_fetch_progress_on_a_terminal_or_when_asked(monkeypatch, tmp_path):
    """pip's progress bar goes to stderr with --progress or on a terminal; off otherwise."""
    from acl_bridge.models.apps import fetch

    class Tty:
        def isatty(self):
            return True

    assert fetch.wants_progress(False, Tty()) and fetch.wants_progress(True, object())
    assert not fetch.wants_progress(False, object())
    seen = []

    def fake_run(cmd, **kwargs):
        seen.append((cmd[cmd.index("--progress-bar") + 1], kwargs.get("stdout"), kwargs.get("capture_output")))
        return subprocess.CompletedProcess(cmd, 0, "", "")

    monkeypatch.setattr(fetch.subprocess, "run", fake_run)
    fetch._pip(["download", "x"], progress=True)
    fetch._pip(["download", "x"], progress=False)
    assert seen == [("on", 2, None), ("off", None, True)]  # progress: pip writes to our stderr; else captured


def test_fetch_print_wheel_dir_is_where_the_wheels_go(capsys, monkeypatch, tmp_path):
    """``fetch --print-wheel-dir X.Y`` (docker/inside.sh installs from it) prints the folder
    ``fetch --image-wheels`` downloads Python X.Y's wheels into (pip's ``-d``, recorded), one
    per version; a version without a wheel list is bad input (exit 2, naming the choices)."""
    from acl_bridge.models.apps import fetch

    monkeypatch.setenv("ACL_NDARRAY_CACHE", str(tmp_path / "cache"))
    downloaded = {}

    def pip(args, progress=False):
        machine = args[args.index("--platform") + 1].split("_", 1)[1]
        downloaded[args[args.index("--python-version") + 1], machine] = args[args.index("-d") + 1]
        assert all(p.endswith(machine) for p in args[1 + args.index("--platform")::2][:4])

    monkeypatch.setattr(fetch, "_pip", pip)
    printed = {}
    for version, machines in sorted(fetch.IMAGE_MACHINES.items()):
        for machine in machines:
            fetch.ensure_wheels(version, machine=machine)
            code, out, err = run(capsys, "fetch", "--print-wheel-dir", version, "--wheel-machine", machine)
            assert (code, err) == (0, "") and out.count("\n") == 1
            printed[version, machine] = out.strip()
    assert printed == downloaded and len(set(printed.values())) == len(printed) >= 3
    code, out, err = run(capsys, "fetch", "--print-wheel-dir", "3.11")  # aarch64 unless told
    assert out.strip() == printed["3.11", "aarch64"]
    code, out, err = run(capsys, "fetch", "--print-wheel-dir", "3.13", "--wheel-machine", "x86_64")
    assert code == 1 and out == "" and "--wheel-machine x86_64: no wheels are fetched for Python 3.13" in err
    assert all(p.startswith(str(tmp_path / "cache")) for p in printed.values())
    code, out, err = run(capsys, "fetch", "--print-wheel-dir", "2.7")
    assert (code, out) == (2, "") and "argument --print-wheel-dir: invalid choice: '2.7'" in err
