"""The parsed-model cache: a warm read gives exactly what the reader gives, and every way a
cache file can be wrong (damaged, truncated, foreign, another format, an unreadable or
unwritable directory) is a warning and a cold read, never an error or a wrong model."""

import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")

from acl_bridge.models.format import model_cache as mc  # noqa: E402
from acl_bridge.models.format.model_cache import ModelCacheWarning, read_model_cached  # noqa: E402
from acl_bridge.user_cache import SEAL, seal  # noqa: E402
from ndarray.errors import ArgumentTypeError  # noqa: E402
from acl_bridge.models.format.tflite_reader import read_model  # noqa: E402

from .conftest import model_file  # noqa: E402
from .tiny_tflite import X, one_operator_model  # noqa: E402

MODELS = ["face_detection_front", "face_landmark", "visual_wake_words", "keyword_spotting_alexa",
          "image_classification", "fingerprint_signature_generator"]


def assert_same_spec(a, b):
    """Every field of two ModelSpecs, constants element by element and in the same dtype."""
    assert (a.version, a.description, a.operators, a.inputs, a.outputs, a.md5) == \
        (b.version, b.description, b.operators, b.inputs, b.outputs, b.md5)
    assert len(a.tensors) == len(b.tensors)
    for s, t in zip(a.tensors, b.tensors):
        assert (s.index, s.name, s.shape, s.dtype, s.quantization) == (t.index, t.name, t.shape, t.dtype, t.quantization)
        assert (s.data is None) == (t.data is None), s
        if s.data is not None:
            assert t.data.dtype == s.data.dtype and t.data.shape == s.data.shape
            assert np.array_equal(s.data.view(np.uint8), t.data.view(np.uint8)), s  # bit for bit (NaNs, -0.0)
            assert not t.data.flags.writeable


@pytest.mark.parametrize("name", MODELS)
def test_warm_read_is_the_reader_s_model(name, tmp_path):
    path = model_file(name)
    fresh = read_model(path)
    cold, r1 = read_model_cached(path, tmp_path)
    warm, r2 = read_model_cached(path, tmp_path)
    assert (r1.state, r2.state) == ("cold", "warm"), (r1, r2)
    assert r1.path == r2.path and os.path.exists(r2.path)
    assert_same_spec(fresh, cold)
    assert_same_spec(fresh, warm)
    for t in warm.tensors:  # constants are 64-byte aligned in memory (as in the file)
        if t.data is not None:
            assert t.data.ctypes.data % 64 == 0, t


def _tiny(value: float = 0.5):
    """One ADD with a constant and a fused activation (options, a constant, quantization-free)."""
    const = np.full((1, 2, 2, 3), value, np.float32)
    return one_operator_model("ADD", (1, 2, 2, 3), (1, 2, 2, 3), (X, const),
                              ("AddOptions", {"FusedActivationFunction": "RELU6"}))


def test_bytes_and_paths_share_one_entry(tmp_path):
    data = _tiny()
    f = tmp_path / "m.tflite"
    f.write_bytes(data)
    _, r1 = read_model_cached(data, tmp_path / "c")
    spec, r2 = read_model_cached(f, tmp_path / "c")
    assert (r1.state, r2.state) == ("cold", "warm")
    assert_same_spec(read_model(data), spec)


def test_off_reads_the_model_and_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv(mc.DIR_ENV, str(tmp_path / "never"))
    spec, r = read_model_cached(_tiny(), False)
    assert r.state == "off" and r.path is None
    assert not (tmp_path / "never").exists()
    assert_same_spec(read_model(_tiny()), spec)


def test_default_directory_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(mc.DIR_ENV, str(tmp_path / "here"))
    _, r = read_model_cached(_tiny())
    assert r.state == "cold" and os.path.dirname(r.path) == str(tmp_path / "here")
    monkeypatch.delenv(mc.DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert mc.cache_dir() == tmp_path / "xdg" / "acl-ndarray" / "parsed-models"


def _cold_after(path, tmp_path, expect):
    """A read after the cache file was spoiled: a warning naming ``expect``, a cold read that
    gives the reader's model, and a good file saved over the bad one."""
    data = _tiny()
    with pytest.warns(ModelCacheWarning, match=expect):
        spec, r = read_model_cached(data, tmp_path)
    assert r.state == "cold" and "saved" in r.reason
    assert_same_spec(read_model(data), spec)
    _, again = read_model_cached(data, tmp_path)
    assert again.state == "warm"


def _cache_file(tmp_path):
    _, r = read_model_cached(_tiny(), tmp_path)
    assert r.state == "cold"
    return r.path


@pytest.mark.parametrize("where", ["header", "data", "last byte"])
def test_a_damaged_file_is_a_warning_and_a_cold_read(tmp_path, where):
    path = _cache_file(tmp_path)
    blob = bytearray(open(path, "rb").read())
    at = {"header": len(mc.MAGIC) + SEAL.size + 5, "data": len(blob) - 9, "last byte": len(blob) - 1}[where]
    blob[at] ^= 0x40
    open(path, "wb").write(bytes(blob))
    _cold_after(path, tmp_path, "checksum")


@pytest.mark.parametrize("keep", [0, 4, 30, -1])
def test_a_truncated_file_is_a_warning_and_a_cold_read(tmp_path, keep):
    path = _cache_file(tmp_path)
    blob = open(path, "rb").read()
    open(path, "wb").write(blob[:keep] if keep >= 0 else blob[:keep])
    _cold_after(path, tmp_path, "no header|the header says")


def test_another_format_version_is_a_warning(tmp_path):
    path = _cache_file(tmp_path)
    blob = bytearray(open(path, "rb").read())
    blob[len(mc.MAGIC)] += 1
    open(path, "wb").write(bytes(blob))
    _cold_after(path, tmp_path, "format version")


def test_a_foreign_file_is_never_used(tmp_path):
    """A valid cache file of another model, copied under this model's name: its key differs."""
    _, r = read_model_cached(_tiny(0.25), tmp_path / "other")
    blob = open(r.path, "rb").read()
    path = _cache_file(tmp_path)
    assert os.path.basename(path) != os.path.basename(r.path)
    open(path, "wb").write(blob)
    _cold_after(path, tmp_path, "the file is for")


def test_a_graph_that_does_not_parse_is_a_warning(tmp_path):
    """A well-sealed file (checksum good) whose graph names data outside the file."""
    from acl_bridge.user_cache import unseal

    data = _tiny()
    blob = mc.encode(read_model(data), mc._key(mc.model_hash(data)))
    header, constants = unseal(mc.MAGIC, mc.FORMAT_VERSION, blob, "test")
    graph = json.loads(bytes(header))
    where = graph["tensors"]["data"]
    first = next(k for k, at in enumerate(where) if at is not None)  # the tiny model has a constant
    where[first] = [9999999, where[first][1]]
    bad_header = json.dumps(graph).encode()
    path = _cache_file(tmp_path)
    open(path, "wb").write(seal(mc.MAGIC, mc.FORMAT_VERSION, bad_header, constants))
    _cold_after(path, tmp_path, "does not parse")


_UNWRITABLE = """
import os, sys, warnings
from acl_bridge.models.format.model_cache import read_model_cached
data = open(sys.argv[1], "rb").read()
read_model_cached(data, sys.argv[2])  # a writable directory first: every module of the path imported
if os.geteuid() == 0:  # root writes any directory: drop to nobody before the unwritable one
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    spec, r = read_model_cached(data, sys.argv[3])
print(os.geteuid(), r.state, len(spec.tensors))
print(r.reason)
for w in caught:
    print(w.category.__name__, w.message)
"""


def test_an_unwritable_directory_is_a_warning(tmp_path):
    """A cache directory the user cannot write: a cold start, a warning, nothing raised. Every
    stage runs as root, who writes any directory, so the check runs in a subprocess that drops
    to nobody (uid 65534) with os.setuid after importing what it needs."""
    import tempfile

    import acl_bridge

    base = tempfile.mkdtemp(prefix="acl-ndarray-unwritable-")  # not under tmp_path: nobody must reach it
    try:
        os.chmod(base, 0o755)
        model = os.path.join(base, "m.tflite")
        with open(model, "wb") as f:
            f.write(_tiny())
        os.chmod(model, 0o644)
        ro = os.path.join(base, "ro")
        os.mkdir(ro)
        if os.geteuid() == 0:
            os.chown(ro, 65534, 65534)  # nobody's own folder (the cache trusts no other owner's)
        os.chmod(ro, 0o555)  # ... which nobody cannot write
        root = os.path.dirname(os.path.dirname(os.path.abspath(acl_bridge.__file__)))
        env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
        out = subprocess.run([sys.executable, "-c", _UNWRITABLE, model, str(tmp_path / "w"), ro],
                             capture_output=True, text=True, timeout=300, env=env, cwd=base)
        assert out.returncode == 0, out.stderr[-3000:]
        lines = out.stdout.splitlines()
        uid, state, tensors = lines[0].split()
        assert uid != "0" and state == "cold" and int(tensors) == len(read_model(_tiny()).tensors), lines
        assert "no cache file; not saved: " in lines[1] and "Permission denied" in lines[1], lines
        assert any(line.startswith("ModelCacheWarning cannot write the parsed-model cache " + ro) for line in lines[2:]), lines
        assert os.listdir(ro) == []
    finally:
        os.chmod(os.path.join(base, "ro"), 0o755) if os.path.isdir(os.path.join(base, "ro")) else None
        import shutil

        shutil.rmtree(base, ignore_errors=True)


def test_a_directory_that_is_a_file_is_a_warning(tmp_path):
    """Also as root: the cache directory's path is a regular file."""
    f = tmp_path / "file"
    f.write_bytes(b"x")
    with pytest.warns(ModelCacheWarning):
        spec, r = read_model_cached(_tiny(), f)
    assert r.state == "cold" and "not saved" in r.reason
    assert_same_spec(read_model(_tiny()), spec)


def test_keep_false_writes_nothing_and_still_reads_a_kept_file(tmp_path):
    """What the runners ask on a first start that keeps the lowered plan (which holds the
    parsed model): a miss is read and not written; a file kept earlier is still read."""
    spec, r = read_model_cached(_tiny(), tmp_path, keep=False)
    assert (r.state, r.path) == ("cold", None) and "not saved: the lowered plan keeps it" in r.reason
    assert not any(tmp_path.iterdir())
    assert_same_spec(read_model(_tiny()), spec)
    read_model_cached(_tiny(), tmp_path)
    again, r = read_model_cached(_tiny(), tmp_path, keep=False)
    assert r.state == "warm"
    assert_same_spec(spec, again)
    with pytest.raises(ArgumentTypeError, match="keep is 1, expected True or False"):
        read_model_cached(_tiny(), tmp_path, keep=1)


def test_a_runner_s_first_start_keeps_the_plan_alone_and_its_second_reads_it(tmp_path):
    from acl_bridge.models.runtime.numpy_backend import NumpyRunner

    with NumpyRunner(_tiny(), model_cache=tmp_path) as first:
        assert first.model_cache.state == "cold" and "plan kept" in first.model_cache.reason
    assert [p.suffix for p in tmp_path.iterdir()] == [".aclplan"]
    with NumpyRunner(_tiny(), model_cache=tmp_path) as second:
        assert (second.model_cache.state, second.model_cache.reason) == ("warm", "lowered plan kept")
        assert_same_spec(first.plan.model, second.plan.model)


def test_model_errors_stay_the_reader_s(tmp_path):
    from acl_bridge.models.format.tflite_reader import ModelFormatError

    with pytest.raises(ModelFormatError):
        read_model_cached(b"not a model at all", tmp_path)
    assert not any(tmp_path.iterdir())  # nothing saved for a model that does not read


def test_a_warm_start_imports_no_tflite(tmp_path):
    """The point of the cache: a second process reads the model without the tflite package."""
    f = tmp_path / "m.tflite"
    f.write_bytes(_tiny())
    read_model_cached(f, tmp_path / "c")
    code = ("import sys; from acl_bridge.models.format.model_cache import read_model_cached as r; "
            f"s, rep = r({str(f)!r}, {str(tmp_path / 'c')!r}); "
            "print(rep.state, 'tflite' in sys.modules, len(s.tensors))")
    # the child imports the very package this process did (the reader's identity is its files'
    # stamps: a copy of the same sources elsewhere is another reader)
    import acl_bridge

    root = os.path.dirname(os.path.dirname(os.path.abspath(acl_bridge.__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    with warnings.catch_warnings():
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    state, imported, n = out.stdout.split()
    assert (state, imported) == ("warm", "False") and int(n) == len(read_model(_tiny()).tensors)


def test_the_key_holds_the_tflite_package_s_version(tmp_path, monkeypatch):
    """Its generated readers decide what a parse gives: a file written under another version
    of the package is not used (that finding the version imports nothing is checked by
    test_a_warm_start_imports_no_tflite)."""
    version = mc._tflite_version()
    assert version and version.startswith("tflite-"), version
    assert mc._key("0" * 64)["tflite"] == version
    _cache_file(tmp_path)
    monkeypatch.setattr(mc, "_tflite_version", lambda: "tflite-0.0.1.dist-info")
    spec, r = read_model_cached(_tiny(), tmp_path)
    assert r.state == "cold"  # another file name: the old one is simply not found


def test_any_failure_while_decoding_is_a_rejection(tmp_path, monkeypatch):
    """Whatever a damaged but well-sealed graph raises (here a stand-in for a type no check
    foresaw) is a warning and a cold read, never an exception out of the read."""
    _cache_file(tmp_path)

    def broken(*args):
        raise ZeroDivisionError("unforeseen")

    with monkeypatch.context() as m:
        m.setattr(mc, "decode_tensors", broken)
        with pytest.warns(ModelCacheWarning, match="does not parse: ZeroDivisionError: unforeseen"):
            spec, r = read_model_cached(_tiny(), tmp_path)
    assert r.state == "cold"
    assert_same_spec(read_model(_tiny()), spec)


def test_an_empty_directory_name_is_refused(tmp_path):
    from ndarray.errors import UnsupportedOptionError

    with pytest.raises(UnsupportedOptionError, match="model_cache is ''"):
        read_model_cached(_tiny(), "")


def test_a_dequantized_model_is_a_file_of_its_own_with_the_folded_constants(tmp_path):
    """read_model_cached(..., dequantized=True): what fold_constant_dequantize gives, kept apart
    from the plain parse (another key), warm the second time, the same values."""
    from acl_bridge.models.format.tflite_reader import fold_constant_dequantize

    data = open(model_file("face_detection_front"), "rb").read()  # float16 weights, DEQUANTIZEd
    assert any(op.opcode == "DEQUANTIZE" for op in read_model(data).operators)
    plain, r0 = read_model_cached(data, tmp_path)
    folded, r1 = read_model_cached(data, tmp_path, dequantized=True)
    again, r2 = read_model_cached(data, tmp_path, dequantized=True)
    assert (r0.state, r1.state, r2.state) == ("cold", "cold", "warm") and r1.path != r0.path
    want = fold_constant_dequantize(read_model(data))
    assert not any(op.opcode == "DEQUANTIZE" for op in want.operators)
    for got in (folded, again):
        assert got.operators == want.operators and got.md5 == plain.md5
        for a, b in zip(got.tensors, want.tensors):
            assert (a.shape, a.dtype) == (b.shape, b.dtype)
            assert (a.data is None) == (b.data is None) and (a.data is None or np.array_equal(a.data, b.data))
    with pytest.raises(ArgumentTypeError):
        read_model_cached(data, tmp_path, dequantized="yes")


@pytest.mark.parametrize("where, value, match", [
    ("scale", -1.0, r"quantization.scale\[3\] is -1.0, expected a finite number > 0"),
    ("scale", float("nan"), r"quantization.scale\[3\] is nan"),
    ("zero_point", 300, r"quantization.zero_point\[3\] is 300, expected a value in \[-128, 127\]"),
])
def test_a_kept_file_is_held_to_the_reader_s_quantization_checks(where, value, match):
    """A parsed-model file whose per-channel parameters were crafted (as a run of the data
    part, checked with numpy) is rejected with the reader's own message."""
    from dataclasses import replace

    spec = read_model(open(model_file("visual_wake_words"), "rb").read())
    t = next(t for t in spec.tensors if t.quantization is not None and len(t.quantization.scale) > 16
             and t.dtype == np.int8)
    values = list(getattr(t.quantization, where))
    values[3] = value
    crafted = replace(spec, tensors=tuple(replace(u, quantization=replace(u.quantization, **{where: tuple(values)}))
                                          if u.index == t.index else u for u in spec.tensors))
    key = {"test": 1}
    with pytest.raises(mc.CacheFileRejected, match=match):
        mc.decode(memoryview(mc.encode(crafted, key)), key)
    assert mc.decode(memoryview(mc.encode(spec, key)), key).tensors[t.index].quantization == t.quantization


def test_a_kept_tensor_past_the_reader_s_limits_is_rejected():
    from dataclasses import replace

    from acl_bridge.models.format.tflite_reader import MAX_ELEMENTS

    spec = read_model(_tiny())
    big = replace(spec, tensors=(replace(spec.tensors[0], shape=(1 << 20, 1 << 20)),) + spec.tensors[1:])
    key = {"test": 1}
    with pytest.raises(mc.CacheFileRejected, match=f"expected at most 6 sizes and {MAX_ELEMENTS} elements"):
        mc.decode(memoryview(mc.encode(big, key)), key)


def test_a_kept_bias_scale_that_is_not_input_x_weight_is_named():
    """The per-channel bias scales of every operator are compared in one pass; one that fails
    is named as the reader names it (operator, channel, the product it should be)."""
    from dataclasses import replace

    spec = read_model(open(model_file("visual_wake_words"), "rb").read())
    b = next(t for t in spec.tensors if t.dtype == np.int32 and t.quantization is not None
             and len(t.quantization.scale) > 16)
    scales = list(b.quantization.scale)
    scales[5] *= 1.01
    crafted = replace(spec, tensors=tuple(replace(u, quantization=replace(u.quantization, scale=tuple(scales)))
                                          if u.index == b.index else u for u in spec.tensors))
    key = {"test": 1}
    with pytest.raises(mc.CacheFileRejected, match=r"bias .*quantization.scale\[5\] is .* expected input scale"):
        mc.decode(memoryview(mc.encode(crafted, key)), key)
    from acl_bridge.models.format.tflite_quantization import check_quantization
    from acl_bridge.models.format.tflite_reader import ModelFormatError
    with pytest.raises(ModelFormatError, match=r"quantization.scale\[5\]"):  # the reader's own check, the same words
        check_quantization(crafted)


_SCALES = st.floats(allow_nan=True, allow_infinity=True, width=64) | st.sampled_from([0.0, -0.0, 0.5, 1e-300])
_RUN = st.tuples(st.lists(_SCALES, min_size=1, max_size=5), st.lists(st.integers(-300, 300), min_size=1, max_size=5),
                 st.sampled_from([(-128, 127), (0, 255), (-32768, 32767)]), st.booleans())


@given(st.lists(_RUN, max_size=6))
@settings(max_examples=200, deadline=None)
@example([([0.5, float("inf")], [0, 1], (-128, 127), False)])
@example([([0.5], [3], (-128, 127), True), ([float("nan")], [0], (0, 255), True)])
@example([([0.25, 0.5], [0, 128], (-128, 127), False)])
def test_the_kept_values_check_is_that_of_each_value(runs):
    """_check_runs (runs of the data part, 8-byte aligned or not) and _values_hold's inline
    values answer what every scale finite and > 0 and every zero point in its limits says,
    without numpy's reductions."""
    data, queued, scales, points = bytearray(), [], [], []
    for s, z, (lo, hi), misaligned in runs:
        data += b"\0" * (3 if misaligned else 0)
        at = len(data)
        data += np.array(s, "<f8").tobytes()
        zat = len(data)
        data += np.array(z, "<i8").tobytes()
        queued.append((at, len(s), zat, len(z), lo, hi))
        scales += s
        points += [(v, lo, hi) for v in z]
    expected = all(math.isfinite(v) and v > 0 for v in scales) and all(lo <= v <= hi for v, lo, hi in points)
    assert (not queued or mc._check_runs(queued, bytes(data))) == expected
    inline = (scales, [v for v, _, _ in points], [(lo, hi) for _, lo, hi in points])
    if len(inline[0]) == len(inline[1]):  # (as _queue_values queues them: a zero point per scale)
        assert mc._values_hold([], inline, b"") == expected
