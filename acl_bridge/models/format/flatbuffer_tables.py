"""A FlatBuffer's tables, vectors and strings read straight from its bytes, every position
checked against the buffer.

The generated classes of the ``tflite`` package read one field per method call (a new
object per table, three reads per field, a numpy array per vector); this reads a table's
field offsets once (:meth:`Tables.fields`) and a vector in one ``struct`` read, for the
fields a model's graph needs (:mod:`.tflite_reader`, which names them by their field number in
TensorFlow's ``schema.fbs``). It knows the FlatBuffer wire format only, not the schema.

Every read refuses what lies outside the buffer: :class:`FlatBufferError` (a ValueError)
with the byte position and what was read there; the caller names the field.

:class:`Rows` reads the same values with fewer Python calls, for a vector of tables read one
after the other (a model's tensors and operators): a table's field offsets in one tuple padded
with absent fields, a vector's elements in one ``struct`` read. It says nothing of what is
wrong: any position it does not take raises :class:`Irregular` (or ``struct.error``), and the
caller reads that table with :class:`Tables`, which names it.
"""

from __future__ import annotations

import functools
import struct
from typing import Any, Dict, Optional, Tuple

_U32 = struct.Struct("<I").unpack_from
_I32 = struct.Struct("<i").unpack_from
_U16 = struct.Struct("<H").unpack_from
U32, I32, U64 = _U32, _I32, struct.Struct("<Q").unpack_from  # (for readers of Rows' positions)

# element type codes of the vectors read here (struct's letters) and their sizes in bytes
SIZES = {"?": 1, "b": 1, "B": 1, "h": 2, "H": 2, "i": 4, "I": 4, "q": 8, "Q": 8, "f": 4, "d": 8}


class FlatBufferError(ValueError):
    """A position in the buffer that a FlatBuffer cannot have (outside it, or a vtable that
    does not fit)."""


class Tables:
    """Reading of one FlatBuffer (bytes): a table is its position and its field offsets
    (:meth:`fields`, one tuple; field ``k`` at index ``k``, 0 where absent)."""

    __slots__ = ("buf", "size", "_formats")

    def __init__(self, buf: bytes):
        self.buf = buf
        self.size = len(buf)
        self._formats: Dict[Tuple[str, int], struct.Struct] = {}

    def _check(self, at: int, nbytes: int, what: str) -> None:
        if at < 0:
            raise FlatBufferError(f"{what} at byte {at} lies before the start of the buffer")
        if at + nbytes > self.size:
            raise FlatBufferError(f"{what} at byte {at} ({nbytes} bytes) lies past the end of the {self.size}-byte "
                                  f"buffer")

    def root(self) -> int:
        """The root table's position."""
        self._check(0, 4, "root offset")
        pos: int = _U32(self.buf, 0)[0]
        self._check(pos, 4, "root table")
        return pos

    def fields(self, pos: int) -> Tuple[int, ...]:
        """The field offsets of the table at ``pos`` (relative to ``pos``; 0: absent)."""
        self._check(pos, 4, "table")
        vt = pos - _I32(self.buf, pos)[0]
        self._check(vt, 4, "vtable")
        vsize = _U16(self.buf, vt)[0]
        if vsize < 4 or vsize % 2:
            raise FlatBufferError(f"vtable at byte {vt} has size {vsize}, expected an even size of at least 4")
        self._check(vt, vsize, "vtable")
        return self._numbers("H", (vsize - 4) // 2, vt + 4)

    def _numbers(self, code: str, n: int, at: int) -> Tuple:
        fmt = self._formats.get((code, n))
        if fmt is None:
            fmt = self._formats[(code, n)] = struct.Struct(f"<{n}{code}")
        return fmt.unpack_from(self.buf, at)

    def scalar(self, pos: int, offsets: Tuple[int, ...], k: int, code: str, default=0):
        """Field ``k`` of the table at ``pos``, a number of type ``code`` (struct's letter);
        ``default`` where the table does not store it."""
        off = offsets[k] if k < len(offsets) else 0
        if not off:
            return default
        at = pos + off
        self._check(at, SIZES[code], "field")
        return self._numbers(code, 1, at)[0]

    def ref(self, pos: int, offsets: Tuple[int, ...], k: int) -> Optional[int]:
        """Where field ``k`` (a table, vector, string or union) points; None where absent."""
        off = offsets[k] if k < len(offsets) else 0
        if not off:
            return None
        at = pos + off
        self._check(at, 4, "offset field")
        return at + _U32(self.buf, at)[0]

    def vector(self, pos: int, offsets: Tuple[int, ...], k: int, element_bytes: int) -> Tuple[int, int]:
        """(start of its elements, length) of vector field ``k``; (0, 0) where absent. The
        elements are checked to lie inside the buffer."""
        at = self.ref(pos, offsets, k)
        if at is None:
            return 0, 0
        self._check(at, 4, "vector length")
        n: int = _U32(self.buf, at)[0]
        self._check(at + 4, n * element_bytes, f"vector of {n} elements")
        return at + 4, n

    def numbers(self, pos: int, offsets: Tuple[int, ...], k: int, code: str) -> Tuple:
        """Vector field ``k`` of numbers of type ``code`` as Python numbers (float32 as exact
        floats); () where absent."""
        start, n = self.vector(pos, offsets, k, SIZES[code])
        return self._numbers(code, n, start) if n else ()

    def bytes_of(self, pos: int, offsets: Tuple[int, ...], k: int) -> Optional[bytes]:
        """Vector field ``k`` of bytes (or a string's bytes); None where absent."""
        at = self.ref(pos, offsets, k)
        if at is None:
            return None
        self._check(at, 4, "vector length")
        n: int = _U32(self.buf, at)[0]
        self._check(at + 4, n, f"vector of {n} bytes")
        return self.buf[at + 4:at + 4 + n]

    def tables(self, pos: int, offsets: Tuple[int, ...], k: int) -> Tuple[int, ...]:
        """The positions of the tables of vector field ``k``; () where absent."""
        start, n = self.vector(pos, offsets, k, 4)
        if not n:
            return ()
        return tuple(start + 4 * j + rel for j, rel in enumerate(self._numbers("I", n, start)))


class Irregular(Exception):
    """What :class:`Rows` does not read (a position outside the buffer, a malformed vtable, a
    value its caller does not take): the caller reads that table with :class:`Tables`."""


_NO_FIELDS = (0,) * 16  # a table's fields past its vtable (Rows.fields pads with these)


class Rows:
    """The reads of :class:`Tables` without a call per check (module docstring): positions are
    checked as :class:`Tables` checks them, a failure raising :class:`Irregular` or
    ``struct.error`` without a message."""

    __slots__ = ("buf", "size", "_vtables")

    def __init__(self, buf: bytes):
        self.buf = buf
        self.size = len(buf)
        self._vtables: Dict[int, Any] = {}  # by vtable size

    @staticmethod
    @functools.lru_cache(maxsize=1024)
    def unpack(code: str, n: int):
        """``struct``'s ``unpack_from`` of ``n`` little-endian numbers of type ``code`` (made
        once per process: a model's vectors have a few lengths)."""
        return struct.Struct(f"<{n}{code}").unpack_from

    def fields(self, pos: int) -> Tuple[int, ...]:
        """The field offsets of the table at ``pos`` (as :meth:`Tables.fields`), then 16 zeros:
        field ``k`` at index ``k`` for any ``k`` below the vtable's count + 16."""
        buf = self.buf
        vt = pos - _I32(buf, pos)[0]
        if vt < 0:
            raise Irregular
        vsize = _U16(buf, vt)[0]
        read = self._vtables.get(vsize)
        if read is None:
            if vsize < 4 or vsize & 1:
                raise Irregular
            read = self._vtables[vsize] = self.unpack("H", (vsize - 4) >> 1)
        return read(buf, vt + 4) + _NO_FIELDS

    def vector(self, at: int, element_bytes: int) -> Tuple[int, int]:
        """(start of its elements, length) of the vector the offset field at byte ``at`` points
        to, its elements inside the buffer."""
        at += _U32(self.buf, at)[0]
        n: int = _U32(self.buf, at)[0]
        if at + 4 + n * element_bytes > self.size:
            raise Irregular
        return at + 4, n

    def numbers(self, at: int, code: str) -> Tuple:
        """The numbers of type ``code`` of the vector the offset field at ``at`` points to."""
        start, n = self.vector(at, SIZES[code])
        return self.unpack(code, n)(self.buf, start) if n else ()


__all__ = ["Tables", "Rows", "Irregular", "FlatBufferError", "SIZES", "U32", "I32", "U64"]
