"""AclTensor: an ACL tensor that imports an NdArray's allocation, without copying.

Lifetime rules (cffi habits of cryptography / cairocffi):
* the native handle is wrapped in ``ffi.gc`` the moment it is created;
* the AclTensor holds a strong reference to the NdArray (hence its numpy allocation) for
  as long as ACL may touch the memory; a function that uses the tensor holds the AclTensor;
* the ACL info is the AclTensorInfo from :func:`acl_bridge.tensor_info`, set with
  ``TensorInfo::init(shape, 1, data_type, strides_in_bytes, offset_first_element_in_bytes,
  total_size_in_bytes)`` and marked non-resizable, so ACL cannot re-pad it;
* memory is imported by :meth:`import_memory` AFTER the function is configured
  (ACL 20.08 silently misconfigures padded kernels otherwise).
"""

from __future__ import annotations

import struct
import weakref
from functools import cached_property
from typing import Optional, Tuple

from ndarray import NdArray, NotRepresentableError

from . import abi
from .backend import NEON, Backend, backend_named
from .mapping import (ELEMENT_BYTES, AclTensorInfo, InfoFields, PaddingSize, acl_layout_padding, alignment_problem,
                      tensor_info)
from .native import AclInvalidArgumentError, check, require_native


# desc -> the per-channel scales it points to (acl_shim_tensor_desc.quantization_scales is a
# borrowed pointer): the array lives as long as the desc object, no longer.
_BORROWED: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def native_desc(info: AclTensorInfo, declare_padding: Optional[PaddingSize] = None, backend: Backend = NEON):
    """An ``acl_shim_tensor_desc`` (cffi struct) holding exactly ``info``; with
    ``declare_padding`` ACL is told the buffer's padding (see acl_layout_padding)."""
    ffi, _ = require_native()
    if info.data_type not in abi.DATA_TYPES:
        raise AclInvalidArgumentError(
            f"data_type is {info.data_type!r}, the native layer supports {sorted(abi.DATA_TYPES)}: {info!r}")
    n = len(info.tensor_shape)
    fields = {"num_dims": n, "offset_first_element_in_bytes": info.offset_first_element_in_bytes,
              "total_size_in_bytes": info.total_size_in_bytes, "data_type": abi.DATA_TYPES[info.data_type],
              "data_layout": abi.DATA_LAYOUTS[info.data_layout], "quantization_scale": info.quantization_scale,
              "quantization_offset": info.quantization_offset}
    if declare_padding:
        fields["declare_padding"] = 1
        (fields["padding_top"], fields["padding_right"], fields["padding_bottom"],
         fields["padding_left"]) = declare_padding.as_tuple()
    if n == len(info.strides_in_bytes) <= abi.MAX_DIMS:  # the fields in one call (a load makes hundreds)
        fields["shape"], fields["strides_in_bytes"] = info.tensor_shape, info.strides_in_bytes
        d = ffi.new("acl_shim_tensor_desc *", fields)
    else:  # dimension by dimension: cffi names the one that does not fit
        d = ffi.new("acl_shim_tensor_desc *", fields)
        for i, (extent, stride) in enumerate(zip(info.tensor_shape, info.strides_in_bytes)):
            d.shape[i] = extent
            d.strides_in_bytes[i] = stride
    if info.quantization_scales and info.data_type == "QSYMM8_PER_CHANNEL":
        # borrowed by the shim for the call that takes d: lives exactly as long as d
        scales = ffi.new("float[]", info.quantization_scales)
        _BORROWED[d] = scales
        d.quantization_scales = scales
        d.quantization_scales_count = len(info.quantization_scales)
    backend.mark(d)
    return d


def desc_content(d) -> bytes:
    """An ``acl_shim_tensor_desc``'s content as bytes: its fields, with the per-channel scales
    it points to in place of the pointer (the same description gives the same bytes in any
    process; what acl_bridge.configure_session keys ACL's answers by)."""
    ffi, _ = require_native()
    scales = _BORROWED.get(d)
    if scales is None:
        return ffi.buffer(d)[:]
    c = ffi.new("acl_shim_tensor_desc *", d[0])
    c.quantization_scales = ffi.NULL
    return ffi.buffer(c)[:] + ffi.buffer(scales)[:]


def record_format(ffi, names: Tuple[str, ...], start: int = 0, to_end: bool = False) -> struct.Struct:
    """The fields ``names`` of ``acl_shim_tensor_desc`` (consecutive, in the header's order, the
    first at or after byte ``start``) as one struct format of native byte order: each field's
    offset and size from the header's own struct, the bytes between fields (and with
    ``to_end`` those after the last, up to the struct's size) as pad bytes, which a zeroed
    desc holds as zeros. A pointer is packed as an integer of its size."""
    fields = dict(ffi.typeof("acl_shim_tensor_desc").fields)
    codes = {"int32_t": "i", "uint32_t": "I", "uint64_t": "Q", "float": "f"}
    text, at = "=", start
    for name in names:
        f = fields[name]
        if f.type.kind == "pointer":
            code, count = {8: "Q", 4: "I"}[ffi.sizeof(f.type)], 1
        else:
            item = f.type.item if f.type.kind == "array" else f.type
            code, count = codes[item.cname], (f.type.length if f.type.kind == "array" else 1)
        text += (f"{f.offset - at}x" if f.offset > at else "") + f"{count}{code}"
        at = f.offset + ffi.sizeof(f.type)
    size = ffi.sizeof("acl_shim_tensor_desc")
    if to_end and size > at:
        text += f"{size - at}x"
    return struct.Struct(text)


# a record's unused dimensions (shape and strides past num_dims), sliced to what each record needs
RECORD_DIM_ZEROS = (0,) * abi.MAX_DIMS
_WHOLE = ("num_dims", "shape", "strides_in_bytes", "offset_first_element_in_bytes", "total_size_in_bytes",
          "data_type", "data_layout", "quantization_scale", "quantization_offset", "declare_padding", "padding_top",
          "padding_right", "padding_bottom", "padding_left", "backend", "quantization_scales",
          "quantization_scales_count")
_WHOLE_FORMATS: dict = {}


def desc_content_of_fields(fields: InfoFields, backend: Backend = NEON) -> bytes:
    """``desc_content(native_desc(AclTensorInfo(*fields), None, backend))`` (no padding
    declared), packed from an info's ``fields`` (:func:`~acl_bridge.mapping.tensor_info_fields`)
    in one call, without the info, the cffi struct or its copy: a first start describes each of a
    model's tensors once (tests/acl/test_describe_bytes.py holds the two equal). Refuses as
    native_desc (made there where a field does not pack)."""
    ffi, _ = require_native()
    fmt = _WHOLE_FORMATS.get(id(ffi))
    if fmt is None:
        fmt = _WHOLE_FORMATS[id(ffi)] = record_format(ffi, _WHOLE, to_end=True)
    shape, strides, offset, total, _, data_type, data_layout, scale, qoffset, scales = fields
    code = abi.DATA_TYPES.get(data_type)
    n = len(shape)
    if code is None or n != len(strides) or n > abi.MAX_DIMS:
        return desc_content(native_desc(AclTensorInfo(*fields), None, backend))  # (refused there, in its words)
    if data_type != "QSYMM8_PER_CHANNEL":
        scales = ()
    pad = RECORD_DIM_ZEROS[:abi.MAX_DIMS - n]
    try:
        head = fmt.pack(n, *shape, *pad, *strides, *pad, offset, total, code, abi.DATA_LAYOUTS[data_layout], scale,
                        qoffset, 0, 0, 0, 0, 0, backend.code or 0, 0, len(scales))
        return head + struct.pack(f"={len(scales)}f", *scales) if scales else head
    except (struct.error, OverflowError, KeyError):  # a value out of a field's range: as native_desc says it
        return desc_content(native_desc(AclTensorInfo(*fields), None, backend))


def desc_from_content(content: bytes):
    """The ``acl_shim_tensor_desc`` whose :func:`desc_content` is ``content`` (the per-channel
    scales appended there pointed to again, borrowed as :func:`native_desc` borrows them)."""
    ffi, _ = require_native()
    n = ffi.sizeof("acl_shim_tensor_desc")
    extra = len(content) - n
    if extra < 0 or extra % 4:
        raise AclInvalidArgumentError(f"a tensor description is {len(content)} bytes, expected {n} plus "
                                      f"4 per per-channel scale")
    d = ffi.new("acl_shim_tensor_desc *")
    ffi.memmove(d, content, n)
    if d.quantization_scales_count != extra // 4:
        raise AclInvalidArgumentError(f"a tensor description counts {d.quantization_scales_count} scales and "
                                      f"carries {extra // 4}")
    d.quantization_scales = ffi.NULL
    if extra:
        scales = ffi.new("float[]", extra // 4)
        ffi.memmove(scales, content[n:], extra)
        _BORROWED[d] = scales
        d.quantization_scales = scales
    return d


# bytes of one element by the shim's data type code (acl_bridge.abi.DATA_TYPES)
_ELEMENT_BYTES_BY_CODE = {code: ELEMENT_BYTES[name] for name, code in abi.DATA_TYPES.items() if name in ELEMENT_BYTES}


def _check_fits(d, array: NdArray, backend: Backend) -> None:
    """A kept description (:func:`desc_from_content`) is given to ACL only for memory it can
    describe: the array's backend and element size, an x stride of one element, and every
    element it addresses inside the array's allocation; else AclInvalidArgumentError. (A batch
    of kept descriptions is checked the same way natively: acl_shim_plan_create.)"""
    size = _ELEMENT_BYTES_BY_CODE.get(d.data_type, 0)
    n = d.num_dims
    problem = None
    if (d.backend or 0) != (backend.code or 0):
        problem = f"it is for backend code {d.backend}, the call's is {backend.name}"
    elif not 1 <= n <= len(d.shape) or size != array.dtype.itemsize:
        problem = f"{n} dimensions of {size}-byte elements, the array has {array.dtype} elements"
    elif d.strides_in_bytes[0] != size:
        problem = f"its x stride is {d.strides_in_bytes[0]} bytes, expected {size}"
    else:
        last = d.offset_first_element_in_bytes + sum((d.shape[i] - 1) * d.strides_in_bytes[i] for i in range(n))
        if any(d.shape[i] == 0 for i in range(n)) or last + size > array.allocation.nbytes \
                or d.total_size_in_bytes > array.allocation.nbytes:
            problem = (f"it addresses bytes up to {last + size} (total {d.total_size_in_bytes}), "
                       f"the allocation has {array.allocation.nbytes}")
    if problem is not None:
        raise AclInvalidArgumentError(f"a kept tensor description does not describe this buffer: {problem}: "
                                      f"{array!r}")


class AclTensor:
    """ACL's view of an NdArray's memory (the same bytes: ``data_ptr`` is the NdArray's)."""

    def __init__(self, array: NdArray, data_layout: str = "NCHW",
                 quantization: Optional[Tuple[float, int]] = None, *, declare_padding: bool = True,
                 backend: Backend = NEON, layout=None, desc: Optional[bytes] = None):
        """``declare_padding``: when the buffer has ACL's own padded layout, tell ACL its
        padding (border-filling kernels may then write into it); else custom strides only.
        ``backend``: "neon" (an ACL Tensor) or "cl" (a CLTensor over the same memory).
        ``layout``: what the ACL description is computed from, when not ``array`` itself
        (the executor passes a bridge-owned buffer's descriptor: its padding is the bridge's).
        ``desc``: the native description already made for exactly this layout (its
        :func:`desc_content`, from a kept :class:`~acl_bridge.decisions.Decision` whose content
        the executor matched): used as it is, and ``info`` is computed only when read."""
        backend = backend_named(backend)
        ffi, lib = require_native()
        self.array = array  # strong reference: keeps the numpy allocation alive
        self._layout = array if layout is None else layout
        self._data_layout, self._quantization, self._declare = data_layout, quantization, declare_padding
        if desc is None:
            problem = alignment_problem(array)
            if problem is not None:
                raise NotRepresentableError(problem)
            d = native_desc(self.info, self.declared_padding, backend)
            self.desc_content = desc_content(d)
        else:
            d = desc_from_content(desc)
            _check_fits(d, array, backend)
            self.desc_content = desc
        out = ffi.new("acl_shim_tensor **")
        check(lib.acl_shim_tensor_create(d, out), "acl_shim_tensor_create")
        self._handle = ffi.gc(out[0], lib.acl_shim_tensor_destroy)
        self._imported = False

    @classmethod
    def adopt(cls, handle, array: NdArray, data_layout: str, quantization, backend: Backend, layout,
              desc: bytes) -> "AclTensor":
        """The AclTensor of a native tensor made elsewhere from ``desc`` (acl_shim_plan_create:
        :mod:`acl_bridge.configure_batch`), memory imported: ``handle`` is owned already
        (``ffi.gc``), ``info`` computed when read, as for a kept description."""
        self = cls.__new__(cls)
        self.array = array
        self._layout = array if layout is None else layout
        self._data_layout, self._quantization, self._declare = data_layout, quantization, True
        self.desc_content = desc
        self._handle = handle
        self._imported = True
        return self

    @cached_property
    def info(self) -> AclTensorInfo:
        """ACL's description of the memory (:func:`acl_bridge.tensor_info`)."""
        if self._layout is None:
            raise AclInvalidArgumentError("tensor was closed before its description was read")
        return tensor_info(self._layout, self._data_layout, self._quantization)

    @cached_property
    def declared_padding(self) -> Optional[PaddingSize]:
        """The padding told to ACL (ACL's own padded layout), or None."""
        return acl_layout_padding(self._layout, self.info) if self._declare else None

    @property
    def handle(self):
        if self._handle is None:
            raise AclInvalidArgumentError(f"tensor is closed: {self.info!r}")
        return self._handle

    @property
    def imported(self) -> bool:
        return self._imported

    @property
    def closed(self) -> bool:
        return self._handle is None

    @property
    def data_ptr(self) -> int:
        """Address of element 0 as ACL sees it (base + offset_first_element_in_bytes)."""
        self.handle  # raises once closed
        return self.array.base_ptr + self.info.offset_first_element_in_bytes

    def import_memory(self) -> None:
        """Hand the NdArray's allocation to ACL (after configure, see module docstring)."""
        ffi, lib = require_native()
        handle = self.handle  # raises once closed
        base = ffi.cast("void *", self.array.base_ptr)
        check(lib.acl_shim_tensor_import(handle, base), "acl_shim_tensor_import")
        self._imported = True

    @property
    def used_by_acl(self) -> bool:
        """False once ACL has marked the tensor unused (``ITensor::is_used``): a function that
        prepared a copy of its own (reshaped weights) never reads this memory again."""
        ffi, lib = require_native()
        used = ffi.new("int32_t *")
        check(lib.acl_shim_tensor_is_used(self.handle, used), "acl_shim_tensor_is_used")
        return bool(used[0])

    def acl_padding(self) -> PaddingSize:
        """The padding ACL's TensorInfo reports (0 for imported, strided infos)."""
        ffi, lib = require_native()
        pad = ffi.new("acl_shim_padding *")
        check(lib.acl_shim_tensor_describe(self.handle, ffi.NULL, pad), "acl_shim_tensor_describe")
        return PaddingSize(pad.top, pad.right, pad.bottom, pad.left)

    def close(self) -> None:
        """Release the native tensor and the reference to the memory now (idempotent).
        A function configured on this tensor keeps its own share of both."""
        if self._handle is not None:
            ffi, _ = require_native()
            ffi.release(self._handle)
            self._handle = None
        self.array = self._layout = None  # type: ignore[assignment]

    def __enter__(self) -> "AclTensor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else ("imported" if self._imported else "not imported")
        info = self.__dict__.get("info")  # never described after close (the layout is let go)
        if info is None and self._layout is not None:
            info = self.info
        return f"AclTensor({info!r}, {state})"
