"""The ``tflite`` package's generated schema classes, each loaded from its own file when the
reader first needs it.

``import tflite`` runs the package's ``__init__``, which imports all of its ~190 generated
modules (and each asks for numpy's spec again): under emulation that was a fifth of a model's
first start, for the dozen classes a model's reading touches. :data:`SCHEMA` gives the same
classes (``SCHEMA.Model``, ``SCHEMA.Conv2DOptions``, ``SCHEMA.BUILTIN_OPCODE2NAME``), the
package's own code unchanged, each module executed from the installed package's file (its
byte code as installed) under a private name: where the package itself was imported already,
its modules are used instead. A generated class that reaches another table imports it as
``from tflite.X import X``; inside these modules that import resolves to this loader, so
nothing here runs the package's ``__init__`` or adds to ``sys.modules``.

ImportError (the reader's message) when the ``tflite`` package is not installed.
"""

from __future__ import annotations

import builtins
import importlib.util
import os
import sys
import threading
from types import ModuleType
from typing import Any, Dict

_PACKAGE = "tflite"
_LOCK = threading.RLock()
_LOADED: Dict[str, ModuleType] = {}
_DIRECTORY: list = []


def _directory() -> str:
    """The installed package's directory (found without importing it)."""
    if not _DIRECTORY:
        spec = importlib.util.find_spec(_PACKAGE)
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("the 'tflite' parser package is not installed (pip install tflite)")
        _DIRECTORY.append(list(spec.submodule_search_locations)[0])
    return _DIRECTORY[0]


def _import(name: str, globals=None, locals=None, fromlist=(), level: int = 0):
    """``__import__`` of the loaded modules: ``from tflite.X import Y`` gives this loader's X."""
    if level == 0 and fromlist and name.startswith(_PACKAGE + "."):
        return module(name[len(_PACKAGE) + 1:])
    return builtins.__import__(name, globals, locals, fromlist, level)


_BUILTINS = dict(vars(builtins), __import__=_import)


def module(name: str) -> ModuleType:
    """The generated module ``tflite.<name>``: the package's own where it is imported, else
    loaded once from its file (ImportError where the package has no such module)."""
    loaded = _LOADED.get(name)  # the hot path: a generated method importing its table class
    if loaded is not None:
        return loaded
    own = sys.modules.get(f"{_PACKAGE}.{name}")
    if own is not None:
        return own
    with _LOCK:
        loaded = _LOADED.get(name)
        if loaded is not None:
            return loaded
        path = os.path.join(_directory(), name + ".py")
        if not name.isidentifier() or not os.path.isfile(path):
            raise ImportError(f"the 'tflite' package has no module {name!r}")
        spec = importlib.util.spec_from_file_location(f"acl_bridge._tflite_schema.{name}", path)
        if spec is None or spec.loader is None:
            raise ImportError(f"the 'tflite' package's {name}.py cannot be loaded")
        loaded = importlib.util.module_from_spec(spec)
        loaded.__dict__["__builtins__"] = _BUILTINS  # its imports of tflite.X come here
        spec.loader.exec_module(loaded)
        _LOADED[name] = loaded
        return loaded


class _Schema:
    """Attribute access as on the package: a class by its name, ``BUILTIN_OPCODE2NAME``
    (``tflite.utils``) and ``__version__``."""

    def __getattr__(self, name: str) -> Any:
        if name == "BUILTIN_OPCODE2NAME":
            return module("utils").BUILTIN_OPCODE2NAME
        if name == "__version__":
            own = sys.modules.get(_PACKAGE)
            if own is not None:
                return own.__version__
            from importlib.metadata import PackageNotFoundError, version

            try:
                return version(_PACKAGE)
            except PackageNotFoundError:
                return "(unknown version)"
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(module(name), name)


SCHEMA = _Schema()

__all__ = ["SCHEMA", "module"]
