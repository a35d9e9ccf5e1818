"""The OpenCL program cache (acl_bridge/cl_program_cache.py): the file format checks (pure, run
anywhere), then, on a device, each start in a fresh process (ACL's programs live per process):
a cold start saves, a warm start restores every program and computes the same bits; a damaged,
truncated, foreign or malformed file, binaries the driver refuses, an unreadable file and an
unwritable directory each warn (ProgramCacheWarning) and start cold with correct results."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from acl_bridge import cl_program_cache as pc
from acl_bridge.user_cache import SEAL, user_secret

ROOT = Path(__file__).resolve().parents[2]

KEY = pc.CacheKey(device_name="dev", platform_name="plat", driver_version="1.0", opencl_version="OpenCL 3.0",
                  acl_version="24.11", shim_abi_version=8, layer_active=True)


def acl_records(*programs) -> bytes:
    """ACL's cache-file format: size_t name length, size_t binary length, name, binary."""
    return b"".join(struct.pack("@NN", len(n), len(b)) + n + b for n, b in programs)


SECRET = bytes(range(32))  # the pure tests' secret; a device test uses the cache folder's own (user_secret)
PAYLOAD = acl_records((b"activation_layer -DACT=relu", b"\x7fELF binary one"), (b"pooling -DPOOL=MAX", b"two"))


# ---------------------------------------------------------------------------- format (pure)
def test_a_packed_file_unpacks_to_acls_file_and_its_program_count():
    data = pc.pack(KEY, PAYLOAD, SECRET)
    assert data.startswith(pc.MAGIC) and data.endswith(PAYLOAD)
    assert pc.unpack(data, KEY, SECRET) == (PAYLOAD, 2)
    assert pc.count_programs(b"") == 0


@pytest.mark.parametrize("field", ["device_name", "driver_version", "opencl_version", "acl_version",
                                   "shim_abi_version", "layer_active", "platform_name"])
def test_any_key_change_is_another_file_and_a_foreign_header_is_refused(field):
    from dataclasses import replace

    other = replace(KEY, **{field: {str: "other", int: 9, bool: False}[type(getattr(KEY, field))]})
    assert other.file_name != KEY.file_name and other.file_name.endswith(pc.SUFFIX)
    with pytest.raises(pc.CacheFileRejected, match="written for another key"):
        pc.unpack(pc.pack(other, PAYLOAD, SECRET), KEY, SECRET)


def test_a_file_authenticated_with_another_secret_is_refused():
    """Key and CRC are public facts: a planted file resealed by someone without this user's
    secret never reaches ACL."""
    planted = pc.pack(KEY, PAYLOAD, bytes(32))
    with pytest.raises(pc.CacheFileRejected, match="not written by this user's processes"):
        pc.unpack(planted, KEY, SECRET)
    with pytest.raises(pc.CacheFileRejected, match="expected at least 32"):
        pc.unpack(pc.seal(pc.MAGIC, pc.FORMAT_VERSION, KEY.text().encode(), b"short"), KEY, SECRET)


@pytest.mark.parametrize("damage, match", [
    (lambda d: d[:-1] + bytes([d[-1] ^ 1]), "checksum mismatch"),
    (lambda d: d[:-3], "the header says"),
    (lambda d: d + b"x", "the header says"),
    (lambda d: b"NOTOURS!" + d[8:], "no header"),
    (lambda d: d[:10], "no header"),
    (lambda d: d[:8] + struct.pack("<I", 99) + d[12:], "format version 99"),
])
def test_damaged_files_are_refused_with_the_reason(damage, match):
    with pytest.raises(pc.CacheFileRejected, match=match):
        pc.unpack(damage(pc.pack(KEY, PAYLOAD, SECRET)), KEY, SECRET)


@pytest.mark.parametrize("payload, match", [
    (PAYLOAD[:-1], "binary length"),
    (PAYLOAD + b"\x01\x02", "ends inside a record header"),
    (struct.pack("@NN", 0, 3) + b"abc", "name length 0"),
    (struct.pack("@NN", 3, 0) + b"abc", "binary length 0"),
    (struct.pack("@NN", 1 << 40, 1) + b"x", "name length"),
    (acl_records((b"bad\x00name", b"bin")), "not printable"),
])
def test_malformed_acl_data_is_refused_even_with_a_good_checksum(payload, match):
    """What ACL's own reader would trust: lengths straight into allocations."""
    with pytest.raises(pc.CacheFileRejected, match=match):
        pc.unpack(pc.pack(KEY, payload, SECRET), KEY, SECRET)


def test_cache_dir_follows_the_override_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.setenv(pc.DIR_ENV, str(tmp_path / "mine"))
    assert pc.cache_dir() == tmp_path / "mine"
    monkeypatch.delenv(pc.DIR_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert pc.cache_dir() == tmp_path / "xdg" / "acl-ndarray" / "cl-programs"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert pc.cache_dir() == tmp_path / "home" / ".cache" / "acl-ndarray" / "cl-programs"


# ---------------------------------------------------------------------------- on a device
START = textwrap.dedent("""
    import json, sys, time, warnings
    import numpy as np
    from acl_bridge.models.runtime.tflite_runner import TfliteRunner
    model, cache, out = sys.argv[1], sys.argv[2], sys.argv[3]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        r = TfliteRunner(model, backend="cl", program_cache=False if cache == "off" else cache)
        seconds = time.perf_counter() - t0
    x = np.random.default_rng(7).uniform(-1, 1, r.input_shape).astype(np.float32)
    np.savez(out, x=x, **r.run(x))
    rep = r.program_cache
    print("RESULT " + json.dumps({"state": rep.state, "reason": rep.reason, "restored": rep.programs_restored,
                                  "saved": rep.programs_saved, "path": rep.path, "seconds": seconds,
                                  "warnings": [f"{type(w.message).__name__}: {w.message}" for w in seen]}))
""")


def start(model, cache, out):
    """One start in a fresh interpreter: (report as a dict, outputs)."""
    done = subprocess.run([sys.executable, "-c", START, str(model), str(cache), str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    result = json.loads(line[len("RESULT "):])
    return result, dict(np.load(out))


def assert_correct(model, outputs):
    """Outputs of a start against TFLite's interpreter (else the numpy plan) on its input."""
    from acl_bridge.models.planning.tflite_plan import plan_model
    from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model
    from models.conftest import tolerance
    from models.test_runner_acl import reference

    ref, oracle = reference(model, plan_model(fold_constant_dequantize(read_model(str(model)))), outputs["x"])
    for k, want in ref.items():
        assert np.abs(outputs[k] - want).max() <= tolerance(want), (k, oracle)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    """A one-operator model (RESIZE_BILINEAR): one ACL program, a start of a second or two."""
    pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
    from models.tiny_tflite import resize_bilinear_model

    path = tmp_path_factory.mktemp("tiny") / "resize.tflite"
    path.write_bytes(resize_bilinear_model((1, 5, 7, 3), (9, 11), half_pixel_centers=True))
    return path


@pytest.fixture
def cold_cache(tiny_model, tmp_path):
    """A cache directory after one cold start of the tiny model: (directory, file, report)."""
    result, outputs = start(tiny_model, tmp_path / "cache", tmp_path / "cold.npz")
    assert result["state"] == "cold" and result["reason"] == "no cache file yet", result
    assert result["saved"] >= 1 and result["warnings"] == [], result
    assert_correct(tiny_model, outputs)
    return tmp_path / "cache", Path(result["path"]), result


def _warned(result, match):
    assert result["state"] == "cold", result
    assert any(w.startswith("ProgramCacheWarning") and match in w for w in result["warnings"]), result["warnings"]


@pytest.mark.cl
def test_warm_start_of_a_face_model_restores_every_program_and_computes_the_same_bits(tmp_path):
    from models.conftest import model_file

    model = model_file("face_detection_front")
    cold, a = start(model, tmp_path / "cache", tmp_path / "cold.npz")
    assert cold["state"] == "cold" and cold["saved"] > 10 and cold["warnings"] == [], cold
    warm, b = start(model, tmp_path / "cache", tmp_path / "warm.npz")
    assert warm["state"] == "warm" and warm["restored"] == cold["saved"] and warm["saved"] == 0, warm
    assert warm["warnings"] == [], (cold, warm)  # the times are printed, not asserted (no clock in assertions)
    for k in ("regressors", "classificators"):
        np.testing.assert_array_equal(a[k], b[k])
    assert_correct(model, b)
    print(f"front model: cold start {cold['seconds']:.2f} s ({cold['saved']} programs saved), "
          f"warm start {warm['seconds']:.2f} s ({warm['restored']} restored)")


@pytest.mark.cl
def test_damaged_file_warns_and_cold_starts_with_correct_results_then_is_rewritten(cold_cache, tiny_model, tmp_path):
    cache, path, _ = cold_cache
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF
    path.write_bytes(bytes(data))
    result, outputs = start(tiny_model, cache, tmp_path / "o.npz")
    _warned(result, "checksum mismatch")
    assert_correct(tiny_model, outputs)
    assert result["saved"] >= 1  # written again, whole
    again, _ = start(tiny_model, cache, tmp_path / "o2.npz")
    assert again["state"] == "warm" and again["warnings"] == [], again


@pytest.mark.cl
def test_truncated_file_warns_and_cold_starts(cold_cache, tiny_model, tmp_path):
    cache, path, _ = cold_cache
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    result, outputs = start(tiny_model, cache, tmp_path / "o.npz")
    _warned(result, "the header says")
    assert_correct(tiny_model, outputs)


@pytest.mark.cl
def test_file_of_another_key_is_ignored(cold_cache, tiny_model, tmp_path):
    """A file copied from another machine or driver (at this key's name): ACL never sees it."""
    cache, path, _ = cold_cache
    payload = path.read_bytes()[len(pc.MAGIC) + SEAL.size:]
    key = json.loads(payload[:payload.index(b"}") + 1])
    payload = payload[payload.index(b"}") + 1 + 32:]  # after the key: the HMAC, then ACL's file
    key["driver_version"] += " (another)"
    path.write_bytes(pc.pack(pc.CacheKey(**key), payload, user_secret(cache)))
    result, outputs = start(tiny_model, cache, tmp_path / "o.npz")
    _warned(result, "written for another key")
    assert_correct(tiny_model, outputs)


@pytest.mark.cl
def test_binaries_the_driver_refuses_are_dropped_and_programs_compiled_again(cold_cache, tiny_model, tmp_path):
    """A file that passes every check of ours (our key, our checksum, ACL's record structure)
    but whose binaries are not programs: the shim drops what ACL restored, warns, cold start."""
    cache, path, _ = cold_cache
    key_len = SEAL.unpack_from(path.read_bytes(), len(pc.MAGIC))[1]
    start_of_key = len(pc.MAGIC) + SEAL.size
    key = pc.CacheKey(**json.loads(path.read_bytes()[start_of_key:start_of_key + key_len]))
    path.write_bytes(pc.pack(key, acl_records((b"scale -DGARBAGE", b"this is not a program binary" * 8)),
                             user_secret(cache)))
    result, outputs = start(tiny_model, cache, tmp_path / "o.npz")
    _warned(result, "ACL could not use")
    assert "every restored program was dropped" in " ".join(result["warnings"])
    assert_correct(tiny_model, outputs)


@pytest.mark.cl
def test_unreadable_cache_file_warns_and_cold_starts(tiny_model, tmp_path):
    """The key's file name is a directory (unreadable as a file, also for root)."""
    from acl_bridge.opencl import cl_init

    cl_init()
    cache = tmp_path / "cache"
    (cache / pc.current_key().file_name).mkdir(parents=True)
    result, outputs = start(tiny_model, cache, tmp_path / "o.npz")
    _warned(result, "cannot read")
    assert_correct(tiny_model, outputs)


@pytest.mark.cl
def test_unwritable_cache_directory_warns_and_still_runs(tiny_model, tmp_path):
    """The directory cannot be made (a file stands where its parent should be: unwritable
    also for root); without root a read-only directory is tried too."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    dirs = [blocker / "cache"]
    if os.geteuid() != 0:
        ro = tmp_path / "read-only"
        ro.mkdir(mode=0o500)
        dirs.append(ro)
    for d in dirs:
        result, outputs = start(tiny_model, d, tmp_path / "o.npz")
        assert result["state"] == "cold" and result["saved"] == 0, result
        assert any("not saved" in w for w in result["warnings"]), result["warnings"]
        assert_correct(tiny_model, outputs)


@pytest.mark.cl
def test_program_cache_off_writes_nothing(tiny_model, tmp_path, monkeypatch):
    monkeypatch.setenv(pc.DIR_ENV, str(tmp_path / "cache"))
    result, outputs = start(tiny_model, "off", tmp_path / "o.npz")
    assert result["state"] == "off" and result["path"] is None and result["warnings"] == [], result
    assert not (tmp_path / "cache").exists()
    assert_correct(tiny_model, outputs)
