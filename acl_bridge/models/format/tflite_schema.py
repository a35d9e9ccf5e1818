"""The ``tflite`` package's generated schema classes, each loaded from its own file when the
reader first needs it, reading through a leaner flatbuffer table.

``import tflite`` runs the package's ``__init__``, which imports all of its ~190 generated
modules (and each asks for numpy's spec again): under emulation that was a fifth of a model's
first start, for the dozen classes a model's reading touches. :data:`SCHEMA` gives the same
classes (``SCHEMA.Model``, ``SCHEMA.Conv2DOptions``, ``SCHEMA.BUILTIN_OPCODE2NAME``), the
package's own code unchanged, each module executed once from the installed package's file
(its byte code as installed) under a private name, whether or not the package itself is
imported. A generated class that reaches another table imports it as ``from tflite.X import
X``; inside these modules that import resolves to this loader, so nothing here runs the
package's ``__init__`` or adds to ``sys.modules``.

The generated accessors read every field through ``flatbuffers.table.Table.Offset`` and
``Get`` (three and one checked reads through a new memoryview each); in these modules a table
is the ``_Table`` of :func:`flatbuffers_namespace`, whose two methods read the same values with
one ``struct`` read each and refuse the same offsets (outside 0..2**32-1: TypeError; past the
buffer: struct.error). The reader uses these classes only for what it does not read itself
(:mod:`.flatbuffer_tables`): the flatbuffers runtime is imported when one is first loaded.

ImportError (the reader's message) when the ``tflite`` package is not installed.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import struct
import sys
import threading
from types import ModuleType, SimpleNamespace
from typing import Any, Dict

_PACKAGE = "tflite"
_LOCK = threading.RLock()
_LOADED: Dict[str, ModuleType] = {}
_DIRECTORY: list = []


def package_directory() -> str:
    """The installed package's directory, found once without importing it (ImportError where
    it is not installed)."""
    if not _DIRECTORY:
        spec = importlib.util.find_spec(_PACKAGE)
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("the 'tflite' parser package is not installed (pip install tflite)")
        _DIRECTORY.append(list(spec.submodule_search_locations)[0])
    return _DIRECTORY[0]


def require_package() -> None:
    """ImportError where the package is not installed or its import is blocked
    (``sys.modules["tflite"] = None``: Python's way of hiding a package, which the tests use)."""
    if _PACKAGE in sys.modules and sys.modules[_PACKAGE] is None:
        raise ImportError("import of tflite halted; None in sys.modules")
    package_directory()


def _import(name: str, globals=None, locals=None, fromlist=(), level: int = 0):
    """``__import__`` of the loaded modules: ``from tflite.X import Y`` gives this loader's X."""
    if level == 0 and fromlist and name.startswith(_PACKAGE + "."):
        return module(name[len(_PACKAGE) + 1:])
    return builtins.__import__(name, globals, locals, fromlist, level)


_BUILTINS = dict(vars(builtins), __import__=_import)


_UOFFSET_MAX = 2 ** 32 - 1
_SOFFSET = struct.Struct("<i")
_VOFFSET = struct.Struct("<H")
_NAMESPACE: list = []


def flatbuffers_namespace() -> SimpleNamespace:
    """What the loaded modules see as ``flatbuffers``: the runtime, with a ``table.Table``
    whose ``Offset`` and ``Get`` read straight from the buffer (module docstring: the values
    and refusals of the runtime's own). Made when a generated class is first loaded: the
    reader's own tables need no flatbuffers runtime (:mod:`.flatbuffer_tables`)."""
    with _LOCK:
        if _NAMESPACE:
            return _NAMESPACE[0]
        import flatbuffers
        from flatbuffers import table as _flatbuffers_table

        class _Table(_flatbuffers_table.Table):
            __slots__ = ()

            def Offset(self, vtableOffset):
                b = self.Bytes
                vtable = self.Pos - _SOFFSET.unpack_from(b, self.Pos)[0]
                if not 0 <= vtable <= _UOFFSET_MAX:
                    raise TypeError(f"bad number {vtable} for type uoffset")
                if vtableOffset < _VOFFSET.unpack_from(b, vtable)[0]:
                    return _VOFFSET.unpack_from(b, vtable + vtableOffset)[0]
                return 0

            def Get(self, flags, off):
                if not 0 <= off <= _UOFFSET_MAX:
                    raise TypeError(f"bad number {off} for type uoffset")
                return flags.py_type(flags.packer_type.unpack_from(self.Bytes, off)[0])

        namespace = SimpleNamespace(**{k: v for k, v in vars(flatbuffers).items() if not k.startswith("__")})
        namespace.table = SimpleNamespace(Table=_Table)
        _NAMESPACE.append(namespace)
        return namespace


def module(name: str) -> ModuleType:
    """The generated module ``tflite.<name>``, loaded once from its file (ImportError where
    the package has no such module)."""
    loaded = _LOADED.get(name)  # the hot path: a generated method importing its table class
    if loaded is not None:
        return loaded
    with _LOCK:
        loaded = _LOADED.get(name)
        if loaded is not None:
            return loaded
        path = os.path.join(package_directory(), name + ".py")
        if not name.isidentifier() or not os.path.isfile(path):
            raise ImportError(f"the 'tflite' package has no module {name!r}")
        spec = importlib.util.spec_from_file_location(f"acl_bridge._tflite_schema.{name}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"the 'tflite' package's {name}.py cannot be loaded")
        loaded = importlib.util.module_from_spec(spec)
        loaded.__dict__["__builtins__"] = _BUILTINS  # its imports of tflite.X come here
        spec.loader.exec_module(loaded)
        if isinstance(getattr(loaded, "flatbuffers", None), ModuleType):
            loaded.flatbuffers = flatbuffers_namespace()  # (read when its methods run)
        _LOADED[name] = loaded
        return loaded


class _Schema:
    """Attribute access as on the package: a class by its name, ``BUILTIN_OPCODE2NAME``
    (``tflite.utils``) and ``__version__``."""

    def __getattr__(self, name: str) -> Any:
        if name == "BUILTIN_OPCODE2NAME":
            return module("utils").BUILTIN_OPCODE2NAME
        if name == "__version__":
            from importlib.metadata import PackageNotFoundError, version

            try:
                return version(_PACKAGE)
            except PackageNotFoundError:
                return "(unknown version)"
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(module(name), name)


SCHEMA = _Schema()

__all__ = ["SCHEMA", "module", "require_package", "package_directory", "flatbuffers_namespace"]
