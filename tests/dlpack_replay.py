"""DLPack tensors as another library exported them, replayed without that library.

``describe(capsule)`` reads a ``dltensor`` capsule (dlpack.h's DLManagedTensor, read here with
ctypes, independently of ndarray.formats.dlpack) into plain values: dtype code, bits, lanes,
shape, strides and the bytes its elements span. ``Replay(record)`` is a DLPack producer that
hands those exact fields back out in a fresh capsule, so a test can consume what PyTorch
produced on a machine that has no PyTorch (tests/fixtures/torch_fixtures.json)."""

import ctypes


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]

_api = ctypes.pythonapi
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def describe(capsule) -> dict:
    """The fields of an unused ``dltensor`` capsule (the capsule is left as it was)."""
    t = ctypes.cast(_api.PyCapsule_GetPointer(capsule, b"dltensor"), ctypes.POINTER(DLManagedTensor)).contents.dl_tensor
    shape = [t.shape[i] for i in range(t.ndim)]
    strides = [t.strides[i] for i in range(t.ndim)] if t.strides else None
    itemsize = t.dtype.bits * t.dtype.lanes // 8
    if 0 in shape:
        span = 0
    else:
        st = strides if strides is not None else [1] * t.ndim  # rank <= 1 only, in these fixtures
        span = (sum((n - 1) * s for n, s in zip(shape, st)) + 1) * itemsize
    data = ctypes.string_at(t.data + t.byte_offset, span) if span else b""
    return {"device": [t.device.device_type, t.device.device_id], "code": t.dtype.code, "bits": t.dtype.bits,
            "lanes": t.dtype.lanes, "shape": shape, "strides": strides, "data_hex": data.hex()}


class Replay:
    """A DLPack producer of one recorded tensor (CPU); keeps the memory while it lives."""

    def __init__(self, record: dict):
        self.record = record
        self._data = ctypes.create_string_buffer(bytes.fromhex(record["data_hex"]) or b"\0")
        self._kept = []

    def __dlpack_device__(self):
        return tuple(self.record["device"])

    def __dlpack__(self, *args, **kwargs):
        r = self.record
        n = len(r["shape"])
        shape = (ctypes.c_int64 * max(n, 1))(*r["shape"])
        strides = (ctypes.c_int64 * max(n, 1))(*r["strides"]) if r["strides"] is not None else None
        m = DLManagedTensor()
        m.dl_tensor.data = ctypes.addressof(self._data)
        m.dl_tensor.device = DLDevice(*r["device"])
        m.dl_tensor.ndim = n
        m.dl_tensor.dtype = DLDataType(r["code"], r["bits"], r["lanes"])
        m.dl_tensor.shape = shape
        m.dl_tensor.strides = strides
        m.dl_tensor.byte_offset = 0
        m.deleter = DELETER()  # NULL: this object owns the memory
        self._kept.append((m, shape, strides))
        return _api.PyCapsule_New(ctypes.addressof(m), b"dltensor", None)

    @property
    def data_ptr(self) -> int:
        return ctypes.addressof(self._data)
