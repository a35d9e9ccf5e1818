"""Arm NN's Python bindings, imported lazily: availability, versions, errors.

pyarmnn 23.08 prints a deprecation notice to stdout when imported; :func:`load` captures it
into :func:`import_notes` and re-raises it once as :class:`PyArmnnDeprecationWarning`.
"""

from __future__ import annotations

import contextlib
import inspect
import io
import logging
import warnings
from typing import Dict, List, Tuple

from ndarray import AclNdarrayError


# ---------------------------------------------------------------------------- errors, warnings
class ArmnnError(AclNdarrayError, RuntimeError):
    """Arm NN refused something (optimize, load, run); carries Arm NN's own messages."""


class ArmnnUnavailableError(ArmnnError):
    """pyarmnn cannot be imported here (the message says why)."""


class PyArmnnDeprecationWarning(FutureWarning):
    """pyarmnn announced its own deprecation (23.08: removed upstream in 24.05)."""


class ArmnnCopyWarning(UserWarning):
    """An NdArray is staged through a dense copy on every run (see module docstring)."""


# ---------------------------------------------------------------------------- lazy import
_STATE: Dict[str, object] = {"module": None, "error": None, "notes": ()}


def load():
    """The ``pyarmnn`` module, imported on first use; ArmnnUnavailableError says why not.

    What pyarmnn prints or logs while importing is captured into :func:`import_notes`; a
    deprecation notice is re-raised once as :class:`PyArmnnDeprecationWarning`.
    """
    if _STATE["module"] is not None:
        return _STATE["module"]
    if _STATE["error"] is not None:
        raise ArmnnUnavailableError(_STATE["error"])
    out = io.StringIO()
    records: List[logging.LogRecord] = []

    class _Collect(logging.Handler):
        def emit(self, record):
            records.append(record)

    logger = logging.getLogger("pyarmnn")
    handler, propagate = _Collect(), logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        with contextlib.redirect_stdout(out):
            import pyarmnn as ann  # noqa: PLC0415  (lazy on purpose)
    except ImportError as e:
        _STATE["error"] = (
            f"pyarmnn could not be imported: {e} (Arm NN's Python bindings are Debian's python3-pyarmnn "
            f"on arm64, with a backend such as libarmnn-cpuacc-backend22 (bookworm) or "
            f"libarmnn-cpuacc-backend33 (trixie))"
        )
        raise ArmnnUnavailableError(_STATE["error"]) from None
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
    notes = [line.strip() for line in out.getvalue().splitlines() if line.strip()]
    notes += [f"{r.levelname}: {r.getMessage()}" for r in records]
    _STATE["notes"] = tuple(notes)
    _STATE["module"] = ann
    for note in notes:
        if "deprecat" in note.lower():
            warnings.warn(PyArmnnDeprecationWarning(f"pyarmnn {armnn_version()}: {note}"), stacklevel=2)
    return ann


def armnn_available() -> Tuple[bool, str]:
    """(True, "pyarmnn 33.0.0 (Arm NN 23.08)") or (False, why not). Never raises.

    A probe: if it is what first imports pyarmnn, the deprecation notice is recorded in
    :func:`import_notes` but not raised as a warning."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PyArmnnDeprecationWarning)
            load()
    except ArmnnUnavailableError as e:
        return False, str(e)
    except Exception as e:  # a broken installation (missing libarmnn, ABI mismatch...)
        _STATE["error"] = f"pyarmnn failed to import: {type(e).__name__}: {e}"
        return False, _STATE["error"]
    return True, f"pyarmnn {armnn_version()} (Arm NN {release()})"


def import_notes() -> Tuple[str, ...]:
    """What pyarmnn printed or logged while importing (e.g. its deprecation notice)."""
    return tuple(_STATE["notes"])


def armnn_version() -> str:
    """``pyarmnn.GetVersion()``: '22.0.0' for Arm NN 20.08, '33.0.0' for 23.08."""
    return str(load().GetVersion())


_RELEASES = {22: "20.08", 33: "23.08"}


def release() -> str:
    """The Arm NN release name ('20.08', '23.08'); 'unknown (major N)' for others."""
    major = int(armnn_version().split(".")[0])
    return _RELEASES.get(major, f"unknown (major {major})")


def _legacy_weights_api(ann) -> bool:
    """True where weights/biases are arguments of AddConvolution2dLayer (Arm NN 20.08)."""
    try:
        params = inspect.signature(ann.INetwork.AddConvolution2dLayer).parameters
    except (TypeError, ValueError):
        return int(armnn_version().split(".")[0]) < 30
    return "weights" in params
