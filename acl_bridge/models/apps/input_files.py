"""``run-tflite``'s INPUT: a numpy ``.npy`` file or a ``.npz`` archive, told apart by their
first bytes and never unpickled. Each array's header is checked against the model's input
(dtype, shape) and against the bytes the file really holds before any data is read, so a
small file whose header claims a huge shape allocates nothing; nothing is cast.
"""

from __future__ import annotations

import math
import zipfile
from typing import BinaryIO, Dict, Sequence, Tuple

import numpy as np

from ndarray.errors import AclNdarrayError

from ..format.files import open_regular

NPY_MAGIC = b"\x93NUMPY"
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")  # a local file header; an empty archive's end record

Spec = Tuple[str, Tuple[int, ...], np.dtype]  # (input name, shape, dtype)


class InputFileError(AclNdarrayError, ValueError):
    """An input file that cannot be used: not .npy/.npz, not the arrays the model takes, a
    dtype or shape other than the model's, a header that promises more bytes than the file has."""


def _header(fp: BinaryIO, where: str) -> Tuple[Tuple[int, ...], bool, np.dtype]:
    fmt = np.lib.format
    try:
        version = fmt.read_magic(fp)
        read = {(1, 0): fmt.read_array_header_1_0, (2, 0): fmt.read_array_header_2_0}.get(version)
        if read is None:
            raise ValueError(f"format version {version[0]}.{version[1]}, this reader takes 1.0 and 2.0")
        shape, fortran, dtype = read(fp)
    except ValueError as e:
        raise InputFileError(f"{where} is not a readable numpy .npy array: {' '.join(str(e).split())}") from None
    if dtype.hasobject:
        raise InputFileError(f"{where} holds Python objects ({dtype}); inputs are numeric arrays, never unpickled")
    return tuple(shape), bool(fortran), dtype


def _read_checked(fp: BinaryIO, size: int, where: str, spec: Spec) -> np.ndarray:
    """The array at ``fp`` (``size`` bytes in all) once its header matches ``spec``."""
    name, shape, dtype = spec
    got_shape, fortran, got_dtype = _header(fp, where)
    if got_dtype != dtype or got_shape != tuple(shape):
        raise InputFileError(
            f"{where} holds {got_dtype}{list(got_shape)}, the model's input {name!r} is {dtype}{list(shape)}"
            + (f"; nothing is cast: convert it yourself (e.g. x.astype(np.{dtype}))" if got_dtype != dtype else ""))
    want, have = math.prod(got_shape) * got_dtype.itemsize, size - fp.tell()
    if have != want:
        raise InputFileError(f"{where} is {'truncated' if have < want else 'longer than its array'}: its header "
                             f"says {got_dtype}{list(got_shape)}, {want} bytes of data, the file holds {have}")
    data = fp.read(want)
    return np.frombuffer(data, got_dtype).reshape(got_shape, order="F" if fortran else "C")


def _from_npz(fp: BinaryIO, path: str, specs: Sequence[Spec]) -> Dict[str, np.ndarray]:
    try:
        z = zipfile.ZipFile(fp)
    except (zipfile.BadZipFile, ValueError) as e:
        raise InputFileError(f"{path} is not a readable .npz archive: {e}") from None
    with z:
        members = {info.filename[:-4]: info for info in z.infolist() if info.filename.endswith(".npy")}
        names = [s[0] for s in specs]
        if len(specs) == 1 and len(members) == 1:
            chosen = {names[0]: next(iter(members.values()))}
        else:
            missing = [n for n in names if n not in members]
            if missing:
                raise InputFileError(
                    f"{path} holds {len(members)} arrays {sorted(members)}, expected "
                    + (f"one, or one named {names[0]!r} (the model's input)" if len(specs) == 1 else
                       f"the model's {len(names)} inputs {names} each under its name (missing: {missing})"))
            chosen = {n: members[n] for n in names}
        out = {}
        for spec in specs:
            info = chosen[spec[0]]
            try:
                with z.open(info) as member:
                    out[spec[0]] = _read_checked(member, info.file_size, f"{path}:{info.filename}", spec)
            except (zipfile.BadZipFile, EOFError, NotImplementedError) as e:  # a damaged or exotic member
                raise InputFileError(f"{path}:{info.filename} cannot be read from the archive: {e}") from None
        return out


def load_inputs(path, specs: Sequence[Spec]) -> Dict[str, np.ndarray]:
    """Every input of ``specs`` by name from the file ``path``: a .npy (a model with one
    input) or a .npz (its only array, or each input under its name). OSError (naming the
    path) when the file cannot be read; InputFileError when its content cannot be used."""
    path = str(path)
    with open_regular(path, "input file") as f:
        size = f.seek(0, 2)
        f.seek(0)
        head = f.read(6)
        f.seek(0)
        if head.startswith(ZIP_MAGICS):
            return _from_npz(f, path, specs)
        if head != NPY_MAGIC:
            raise InputFileError(f"{path} is neither a numpy .npy file nor a .npz archive (it starts with {head!r}); "
                                 f"save the input with numpy.save or numpy.savez")
        if len(specs) != 1:
            raise InputFileError(f"{path} is one .npy array; the model has {len(specs)} inputs "
                                 f"{[s[0] for s in specs]}: save each under its name in a .npz (numpy.savez)")
        return {specs[0][0]: _read_checked(f, size, path, specs[0])}


__all__ = ["InputFileError", "load_inputs", "NPY_MAGIC", "ZIP_MAGICS"]
