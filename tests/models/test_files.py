"""acl_bridge.models.format.files.read_bounded: a file's bytes within a bound, read for its size
(not the bound: a read of the bound first allocates that much), a file past the bound refused
naming its path, a /proc file (whose size says 0) read whole."""

import os

import pytest

from acl_bridge.models.format.files import read_bounded

from .conftest import host_only_under_emulation

pytestmark = host_only_under_emulation  # pure Python: the host stage runs it


@pytest.mark.parametrize("size", [0, 1, 99, 100])
def test_a_file_within_the_bound_is_read_whole(tmp_path, size):
    f = tmp_path / "m.tflite"
    f.write_bytes(bytes(range(size)))
    assert read_bounded(f, "model", 100) == f.read_bytes()


def test_a_file_past_the_bound_is_refused_naming_it(tmp_path):
    f = tmp_path / "m.tflite"
    f.write_bytes(b"x" * 101)
    with pytest.raises(OSError, match=r"is larger than 100 bytes, the most a model may have") as e:
        read_bounded(f, "model", 100)
    assert e.value.filename == str(f)


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc on this system")
def test_a_proc_file_whose_size_says_0_is_read_whole():
    assert os.stat("/proc/self/status").st_size == 0
    data = read_bounded("/proc/self/status", "status", 1 << 20)
    assert data.startswith(b"Name:") and data.endswith(b"\n")
