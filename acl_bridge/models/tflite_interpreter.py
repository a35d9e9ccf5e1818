"""TFLite's own interpreter (PyPI ``ai-edge-litert``), the reference the runners are checked
against, made in one place.

Which kernels: ai-edge-litert 1.x (CPython 3.11: the host and the bookworm image) runs its
default, optimised kernels. 2.x (2.3.0 is the first with CPython 3.13 aarch64 wheels, for
the trixie image) crashes with SIGSEGV in ``allocate_tensors()`` under qemu-user 7.2 with
its optimised kernels, with or without the XNNPACK delegate and on every emulated CPU
tried (max, neoverse-n1, cortex-a72); its reference kernels (``BUILTIN_REF``, TFLite's
plain C++ implementation of every operator) run. So 2.x gets the reference kernels. Not
checked on an arm64 device.
"""

from __future__ import annotations

from typing import Callable, Dict, Tuple

import numpy as np


def interpreter(model, num_threads: int = 1, reference: bool = False):
    """(interpreter with tensors allocated, description) for ``model`` (a path or the
    file's bytes); ImportError when ai-edge-litert is not installed. ``reference``: TFLite's
    reference kernels on every version (the int8 lowering is bit-exact with them; the
    default kernels round some int8 products differently, by up to a few output steps)."""
    import ai_edge_litert
    from ai_edge_litert import interpreter as litert

    version = getattr(ai_edge_litert, "__version__", "?")
    source = {"model_content": bytes(model)} if isinstance(model, (bytes, bytearray)) else {"model_path": str(model)}
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


__all__ = ["interpreter", "runner"]
