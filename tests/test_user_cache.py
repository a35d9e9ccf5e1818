"""The one rule for cache files (acl_bridge.user_cache): options, atomic writes, seals."""

import os
import stat

import pytest

from acl_bridge.user_cache import CacheFileRejected, check_cache_option, seal, unseal, write_atomically
from ndarray.errors import ArgumentTypeError, UnsupportedOptionError


@pytest.mark.parametrize("value", [True, False, "/tmp/x", "relative/dir"])
def test_cache_options_taken(value, tmp_path):
    check_cache_option("model_cache", value)
    check_cache_option("facts_cache", tmp_path)


@pytest.mark.parametrize("value,error", [("", UnsupportedOptionError), (1, ArgumentTypeError),
                                         (None, ArgumentTypeError), (b"/tmp", ArgumentTypeError)])
def test_cache_options_refused_name_the_field(value, error):
    with pytest.raises(error, match=r"^program_cache is "):
        check_cache_option("program_cache", value)


def test_write_atomically_replaces_whole_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "new" / "deeper" / "f.bin"
    write_atomically(path, b"first")
    write_atomically(path, memoryview(b"second"))
    assert path.read_bytes() == b"second"
    assert os.listdir(path.parent) == ["f.bin"]
    assert stat.S_IMODE(os.stat(path.parent).st_mode) & 0o077 == 0  # created for its owner only


def test_write_atomically_failure_keeps_the_old_file(tmp_path):
    path = tmp_path / "f.bin"
    write_atomically(path, b"old")

    with pytest.raises(TypeError):
        write_atomically(path, object())  # type: ignore[arg-type]  # fails inside the write
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["f.bin"]


def test_seal_round_trip_and_each_refusal():
    blob = seal(b"MAGIC", 3, b"head", b"body")
    head, body = unseal(b"MAGIC", 3, blob, "a test file")
    assert (bytes(head), bytes(body)) == (b"head", b"body")
    for damaged, why in ((b"OTHER" + blob[5:], "no header"), (blob[:-1], "the header says"),
                         (blob[:-1] + bytes([blob[-1] ^ 1]), "checksum")):
        with pytest.raises(CacheFileRejected, match=why):
            unseal(b"MAGIC", 3, damaged, "a test file")
    with pytest.raises(CacheFileRejected, match="format version 3, expected 4"):
        unseal(b"MAGIC", 4, blob, "a test file")


def test_sources_stamp_is_the_sha256_of_names_sizes_and_times(tmp_path):
    """A worked example of sources_stamp: sha256 of the seed, then per file in the order given
    its name, size and modification time (ns), each ended by NUL; OSError for a missing file."""
    import hashlib

    from acl_bridge.user_cache import sources_stamp

    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("")
    os.utime(tmp_path / "a.py", ns=(1, 1_000_000_123))
    os.utime(tmp_path / "b.py", ns=(1, 7))
    expected = hashlib.sha256(b"seed" + b"a.py\x006\x001000000123\x00" + b"b.py\x000\x007\x00").hexdigest()
    assert sources_stamp(tmp_path, ("a.py", "b.py"), b"seed") == expected
    assert sources_stamp(str(tmp_path), ()) == hashlib.sha256(b"").hexdigest()
    with pytest.raises(FileNotFoundError):
        sources_stamp(tmp_path, ("a.py", "missing.py"))
