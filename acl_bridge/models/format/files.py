"""The files the commands read and write. Read (a model, a picture, an input array): a path
only (str or os.PathLike: an integer would be a file descriptor), a regular file only (a
folder, a device such as /dev/zero or a FIFO is refused before it is read, and never
blocks), read within a bound; every OSError names the path. Written (``--out``): the file
named, exactly, checked before any work is done (:func:`check_out`).
"""

from __future__ import annotations

import os
import stat
from typing import Any, BinaryIO

from ndarray.errors import ArgumentTypeError, UnsupportedOptionError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"))


def check_path(source: Any, what: str) -> str:
    """``source`` as a str path; ArgumentTypeError for anything but str / os.PathLike."""
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        return path if isinstance(path, str) else os.fsdecode(path)
    raise ArgumentTypeError(f"{what} is {type(source).__name__} {source!r:.60}, expected a path (str or os.PathLike)")


def open_regular(source: Any, what: str) -> BinaryIO:
    """The file at ``source`` opened for reading in binary; OSError (naming the path) when it
    cannot be opened or is not a regular file."""
    path = check_path(source, what)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))  # OSError names the path
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
            raise OSError(0, f"is {kind}, expected a regular file ({what})", path)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bounded(source: Any, what: str, max_bytes: int) -> bytes:
    """The bytes of the regular file ``source``, at most ``max_bytes`` of them (a longer file
    is an OSError naming its path and the bound: nothing past the bound is read)."""
    path = check_path(source, what)
    with open_regular(path, what) as f:
        try:  # its size and a byte more (a read of max_bytes + 1 first allocates that much:
            # 2 GiB of address space, 20 ms of a start under emulation), then on to the bound
            # where it grew (or is a /proc file that says 0)
            size = os.fstat(f.fileno()).st_size
            data = f.read(min(size, max_bytes) + 1)
            if max_bytes >= len(data) > size:
                data += f.read(max_bytes + 1 - len(data))
        except OSError as e:  # /proc/self/mem: EIO without a file name
            raise OSError(e.errno, e.strerror, path) from None
    if len(data) > max_bytes:
        raise OSError(0, f"is larger than {max_bytes} bytes, the most a {what} may have", path)
    return data


def check_out(path: str, suffixes, option: str = "--out") -> str:
    """``path`` when a command may write exactly that file: UnsupportedOptionError for an
    empty name, ``-``, a folder or a name without one of ``suffixes`` (nothing is appended);
    OSError (naming it) when its folder does not exist. The write itself may still fail
    (OSError: permissions, a full disk)."""
    allowed = " or ".join(suffixes)
    if path in ("", "-"):
        raise UnsupportedOptionError(f"{option} is {path!r}, expected a file name ending in {allowed} "
                                     f"(the output is written to that file, never to stdout)")
    if os.path.isdir(path):
        raise UnsupportedOptionError(f"{option} is {path!r}, a folder; expected a file name ending in {allowed}")
    if not path.lower().endswith(tuple(s.lower() for s in suffixes)):
        raise UnsupportedOptionError(f"{option} is {path!r}, expected a file name ending in {allowed} "
                                     f"(the file named is the file written: nothing is appended)")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise OSError(2, f"the folder of {option} {path!r} does not exist", folder)
    return path


__all__ = ["check_path", "open_regular", "read_bounded", "check_out"]
