"""The caches' trust boundary (acl_bridge.user_cache.read_trusted, write_atomically,
user_secret; docs/robustness.md "What the caches trust"): a cache folder or file that is
another user's, writable by others, not a regular file or too big is refused before a byte of
it is used, and nothing is saved into a folder that would be refused. Planted files are made
the way another local user would make them: another owner (as root, chown), loose modes, a
FIFO, a symbolic link to an endless device, a device node."""

import errno
import os
import signal
import stat
import warnings
from contextlib import contextmanager

import pytest

from acl_bridge.facts_cache import FactsCache, FactsCacheWarning
from acl_bridge.user_cache import (CacheNotTrusted, check_cache_folder, read_trusted, user_secret,
                                   write_atomically)

ROOT = os.geteuid() == 0
OTHER_UID = 65534  # nobody
as_root = pytest.mark.skipif(not ROOT, reason="giving a file to another user needs root (every stage runs as root)")


@contextmanager
def no_hang(seconds: int = 5):
    """Fail instead of hanging (a FIFO opened for reading blocks without O_NONBLOCK)."""
    def alarm(*_):
        raise TimeoutError(f"the read blocked for {seconds} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def folder(tmp_path):
    d = tmp_path / "cache"
    d.mkdir(mode=0o700)
    return d


def test_this_user_s_file_is_read_whole_and_aligned(folder):
    f = folder / "f.bin"
    f.write_bytes(bytes(range(200)))
    data = read_trusted(f, alignment_in_bytes=64)
    assert bytes(data) == bytes(range(200)) and data.readonly
    import numpy as np
    assert np.frombuffer(data, np.uint8).ctypes.data % 64 == 0


def test_a_missing_file_or_folder_is_file_not_found(folder):
    with pytest.raises(FileNotFoundError):
        read_trusted(folder / "absent")
    with pytest.raises(FileNotFoundError):
        read_trusted(folder / "no" / "absent")


@pytest.mark.parametrize("mode", [0o666, 0o646, 0o664, 0o620])
def test_a_file_others_may_write_is_refused(folder, mode):
    f = folder / "f.bin"
    f.write_bytes(b"planted")
    f.chmod(mode)
    with pytest.raises(CacheNotTrusted, match=rf"cache file .*f\.bin has mode {mode:o}, expected no write permission"):
        read_trusted(f)


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o770])
def test_a_folder_others_may_write_is_refused_for_reading_and_writing(folder, mode):
    f = folder / "f.bin"
    f.write_bytes(b"kept")
    folder.chmod(mode)
    with pytest.raises(CacheNotTrusted, match=rf"cache folder .*cache has mode {mode:o}"):
        read_trusted(f)
    with pytest.raises(CacheNotTrusted, match="cache folder"):
        write_atomically(folder / "new.bin", b"x")
    assert sorted(os.listdir(folder)) == ["f.bin"]  # nothing saved there


@as_root
def test_another_user_s_file_or_folder_is_refused(folder):
    f = folder / "f.bin"
    f.write_bytes(b"planted")
    os.chown(f, OTHER_UID, OTHER_UID)
    with pytest.raises(CacheNotTrusted, match=rf"cache file .* belongs to uid {OTHER_UID}, expected this user's \(0\)"):
        read_trusted(f)
    os.chown(f, 0, 0)
    os.chown(folder, OTHER_UID, OTHER_UID)
    with pytest.raises(CacheNotTrusted, match=rf"cache folder .* belongs to uid {OTHER_UID}"):
        read_trusted(f)
    with pytest.raises(CacheNotTrusted, match=rf"belongs to uid {OTHER_UID}"):
        check_cache_folder(folder)


def test_a_symbolic_link_is_never_followed(folder, tmp_path):
    target = tmp_path / "elsewhere.bin"
    target.write_bytes(b"elsewhere")
    (folder / "f.bin").symlink_to(target)
    (folder / "zero.bin").symlink_to("/dev/zero")
    for name in ("f.bin", "zero.bin"):
        with no_hang(), pytest.raises(CacheNotTrusted, match="is a symbolic link"):
            read_trusted(folder / name)


def test_a_fifo_neither_hangs_nor_is_read(folder):
    fifo = folder / "f.bin"
    os.mkfifo(fifo, 0o600)
    with no_hang(), pytest.raises(CacheNotTrusted, match=r"is not a regular file"):
        read_trusted(fifo)


@as_root
def test_a_device_node_is_not_read(folder):
    node = folder / "f.bin"
    try:
        os.mknod(node, 0o600 | stat.S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
    except OSError as e:
        if e.errno in (errno.EPERM, errno.EACCES):
            pytest.skip(f"this container may not make device nodes: {e}")
        raise
    with no_hang(), pytest.raises(CacheNotTrusted, match=r"is not a regular file"):
        read_trusted(node)


def test_a_file_over_the_bound_is_refused_before_it_is_read(folder):
    f = folder / "f.bin"
    with open(f, "wb") as out:
        out.truncate(1 << 40)  # a sparse terabyte: reading it would exhaust memory
    with pytest.raises(CacheNotTrusted, match=rf"has {1 << 40} bytes, expected at most 4096"):
        read_trusted(f, 4096)


def test_the_user_secret_is_made_once_and_private(folder):
    key = user_secret(folder)
    assert len(key) == 32 and user_secret(folder) == key
    st = os.stat(folder / "secret.key")
    assert stat.S_IMODE(st.st_mode) == 0o600 and st.st_uid == os.geteuid()
    assert user_secret(folder / "new") != key  # one per folder, made where missing


def test_a_secret_others_may_read_is_refused(folder):
    user_secret(folder)
    (folder / "secret.key").chmod(0o644)
    with pytest.raises(CacheNotTrusted, match="mode 644, expected no access for group or others"):
        user_secret(folder)


@as_root
def test_a_planted_secret_is_refused(folder):
    (folder / "secret.key").write_bytes(bytes(32))
    os.chmod(folder / "secret.key", 0o600)
    os.chown(folder / "secret.key", OTHER_UID, OTHER_UID)
    with pytest.raises(CacheNotTrusted, match="belongs to uid"):
        user_secret(folder)


# ---------------------------------------------------------------------------- a cache that uses it
IDENT = {"acl_version": "24.11", "libraries": [], "cpu": ["features : fp asimd"]}
ANSWERS = {"auto_padding": {"q1": [4, 36, 4, 4]}}


def _kept_facts(folder):
    FactsCache("m" * 64, IDENT, folder).save(ANSWERS)
    f = FactsCache("m" * 64, IDENT, folder)
    assert f.load().state == "warm"
    return f.path


@pytest.mark.parametrize("spoil, match", [
    (lambda f: f.chmod(0o666), "mode 666"),
    (lambda f: f.parent.chmod(0o777), "cache folder .* mode 777"),
    (lambda f: (f.unlink(), os.mkfifo(f, 0o600)), "not a regular file"),
    (lambda f: (f.unlink(), f.symlink_to("/dev/zero")), "symbolic link"),
])
def test_a_planted_facts_file_is_a_warning_and_a_cold_start(folder, spoil, match):
    path = _kept_facts(folder)
    spoil(path)
    with no_hang(), pytest.warns(FactsCacheWarning, match=match):
        report = FactsCache("m" * 64, IDENT, folder).load()
    assert report.state == "cold"


@as_root
def test_a_facts_file_of_another_user_is_a_warning_and_a_cold_start(folder):
    path = _kept_facts(folder)
    os.chown(path, OTHER_UID, OTHER_UID)
    with pytest.warns(FactsCacheWarning, match=f"belongs to uid {OTHER_UID}"):
        report = FactsCache("m" * 64, IDENT, folder).load()
    assert report.state == "cold"


def test_facts_are_never_saved_into_a_folder_others_may_write(folder):
    folder.chmod(0o777)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        written, why = FactsCache("m" * 64, IDENT, folder).save(ANSWERS)
    assert written == 0 and "cache folder" in why, why
    assert any(issubclass(w.category, FactsCacheWarning) for w in seen)
    assert os.listdir(folder) == []
