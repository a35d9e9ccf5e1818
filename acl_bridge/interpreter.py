"""TFLite's Python interpreter on this library: change one import, keep the rest.

``from acl_bridge.interpreter import Interpreter`` in place of ``from ai_edge_litert.interpreter
import Interpreter`` (or ``tflite_runtime.interpreter``): the constructor and the methods are
TFLite's as scripts call them, tensor indices are the model's, the details dicts have TFLite's
fields, and misuse raises the builtin classes TFLite raises (ValueError, TypeError,
RuntimeError) as this library's exceptions (:class:`TensorAccessError`,
:class:`TensorDtypeError`, :class:`InterpreterStateError`, ``InvalidLayoutError``). Underneath
is a :class:`~acl_bridge.models.runtime.tflite_runner.TfliteRunner`, made by
:meth:`Interpreter.allocate_tensors` on ``backend=`` ("auto": ACL's NEON functions where they
load, else the same plan on numpy; "neon", "cl", "numpy"); :attr:`Interpreter.runner` is it.

What differs (docs/interpreter.md): ``tensor(i)()`` is a view of the bridge's own buffer, its
elements only (a padded buffer's padding is not in it), and TFLite's rule is enforced as TFLite
enforces it: while such a view (or anything made from it) is alive, ``invoke()``,
``allocate_tensors()`` and ``resize_tensor_input()`` raise :class:`InterpreterStateError`.
Shapes are planned once: ``resize_tensor_input`` to another shape is refused. Delegates are
refused (the bridge is its own); ``num_threads`` sets ACL's NEON scheduler, which is one per
process. Tensors the plan keeps no buffer for (an activation fused into its producer, a folded
PAD) cannot be read.
"""

from __future__ import annotations

import enum
import os
import weakref
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from ndarray.errors import AclNdarrayError, ArgumentTypeError, InvalidLayoutError, UnsupportedOptionError

from .models.format.tensor_details import ModelDetails, SignatureDetails, TensorDetails, read_details
from .models.runtime.numpy_backend import BACKENDS, resolve_backend


class InterpreterStateError(AclNdarrayError, RuntimeError):
    """A call out of order: ``invoke()`` before ``allocate_tensors()``, or a call that may move
    buffers while a view from ``tensor()`` is alive (TFLite raises RuntimeError for both)."""


class TensorAccessError(AclNdarrayError, ValueError):
    """A tensor that cannot be read or written: an index out of range, a constant written, a
    tensor the plan keeps no buffer for, any tensor before ``allocate_tensors()``."""


class TensorDtypeError(ArgumentTypeError, ValueError):
    """``set_tensor`` with a value of another dtype than the tensor's (nothing is cast)."""


class ModelFileError(AclNdarrayError, OSError, ValueError):
    """``model_path`` cannot be read (TFLite raises ValueError; the OSError stays an OSError)."""


class OpResolverType(enum.Enum):
    """TFLite's ``experimental_op_resolver_type`` values, accepted (as TFLite's own enum too):
    the bridge has one set of kernels, ACL's (or numpy's), whichever is asked for."""

    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


def load_delegate(library, options=None):
    """TFLite's ``load_delegate``: refused (ValueError), the bridge runs ACL itself."""
    raise UnsupportedOptionError(
        f"load_delegate({library!r}) is refused: acl_bridge.interpreter loads no TFLite delegate, it runs the model "
        f"on ACL itself; choose with Interpreter(..., backend='neon' | 'cl' | 'numpy')")


class _Lease:
    """The memory of one tensor as numpy sees it; every array ``tensor()`` hands out has it
    as its base, so the arrays alive show which views are held."""

    def __init__(self, view: np.ndarray):
        self._view = view  # keeps the buffer alive
        self.__array_interface__ = view.__array_interface__


def _details(d: TensorDetails) -> Dict[str, Any]:
    """TFLite's details dict of one tensor."""
    one = len(d.scales) == 1 and len(d.zero_points) == 1
    return {
        "name": d.name,
        "index": d.index,
        "shape": np.array(d.shape, np.int32),
        "shape_signature": np.array(d.shape_signature, np.int32),
        "dtype": d.dtype.type,
        "quantization": (d.scales[0], d.zero_points[0]) if one else (0.0, 0),
        "quantization_parameters": {"scales": np.array(d.scales, np.float32),
                                    "zero_points": np.array(d.zero_points, np.int32),
                                    "quantized_dimension": d.quantized_dimension},
        "sparsity_parameters": {} if d.sparsity is None else _sparsity(d.sparsity),
    }


def _sparsity(sp) -> Dict[str, Any]:
    levels = []
    for m in sp.dim_metadata:
        if m.format == "DENSE":
            levels.append({"format": 0, "dense_size": int(m.dense_size)})
        else:
            levels.append({"format": 1, "array_segments": np.array(m.array_segments, np.int32),
                           "array_indices": np.array(m.array_indices, np.int32)})
    out = {"traversal_order": np.array(sp.traversal_order, np.int32), "dim_metadata": levels}
    if sp.block_map:  # (TFLite leaves the key out where the file has no block map)
        out["block_map"] = np.array(sp.block_map, np.int32)
    return out


class Interpreter:
    """TFLite's ``Interpreter`` on ACL (or numpy): see the module's text for what differs."""

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None, num_threads=None,
                 experimental_op_resolver_type=OpResolverType.AUTO, experimental_preserve_all_tensors=False,
                 experimental_disable_delegate_clustering=False,
                 experimental_default_delegate_latest_features=False, *, backend="auto"):
        if model_path is not None and model_content is not None:
            raise UnsupportedOptionError("both model_path and model_content are given, expected one of them")
        if model_path is None and model_content is None:
            raise UnsupportedOptionError("model_path or model_content must be given")
        if num_threads is not None and (isinstance(num_threads, bool) or not isinstance(num_threads, int)
                                        or num_threads < 1):
            raise UnsupportedOptionError(f"num_threads is {num_threads!r}, expected None or an int >= 1")
        resolver = getattr(experimental_op_resolver_type, "name", None)
        if resolver not in OpResolverType.__members__:
            raise UnsupportedOptionError(f"experimental_op_resolver_type is {experimental_op_resolver_type!r}, "
                                         f"expected one of OpResolverType.{', '.join(OpResolverType.__members__)}")
        if experimental_delegates:
            raise UnsupportedOptionError(
                f"experimental_delegates is {experimental_delegates!r}: acl_bridge.interpreter runs the model on ACL "
                f"itself and loads no TFLite delegate; drop it and choose backend='neon' | 'cl' | 'numpy'")
        if backend not in BACKENDS:
            raise UnsupportedOptionError(f"backend is {backend!r}, expected one of {list(BACKENDS)}")
        if model_path is not None:
            try:
                with open(os.fspath(model_path), "rb") as f:
                    data = f.read()
            except (OSError, TypeError) as e:
                raise ModelFileError(f"model_path {model_path!r} cannot be read: {e}") from None
        else:
            data = bytes(model_content)
        self._data = data
        self._model: ModelDetails = read_details(data)
        self._backend = backend
        self._num_threads = num_threads
        self._preserve_all = bool(experimental_preserve_all_tensors)
        self._runner = None
        self._handed: List[weakref.ref] = []  # the arrays tensor() handed out
        self._leases: Dict[int, _Lease] = {}

    # ------------------------------------------------------------------ state
    @property
    def runner(self):
        """The :class:`~acl_bridge.models.runtime.tflite_runner.TfliteRunner` under this
        interpreter (None before :meth:`allocate_tensors`): its ``backend``,
        ``fallback_operators()``, ``summary()``, ``padded_buffers()``."""
        return self._runner

    def _views_held(self) -> int:
        self._handed = [r for r in self._handed if r() is not None]
        return len(self._handed)

    def _ensure_safe(self, call: str) -> None:
        held = self._views_held()
        if held:
            raise InterpreterStateError(
                f"{call} while {held} numpy view(s) from tensor() are alive: hold the function tensor(i) returns, "
                f"call it after {call}, and let its arrays go before (TFLite's rule, enforced here)")

    def allocate_tensors(self) -> None:
        """Read, plan and configure the model on the backend (the first call; later calls
        keep the buffers)."""
        self._ensure_safe("allocate_tensors()")
        if self._runner is not None:
            return
        from .models.runtime.tflite_runner import TfliteRunner

        name = resolve_backend(self._backend)
        if self._num_threads is not None and name == "neon":
            from .native import set_num_threads

            set_num_threads(self._num_threads)
        options = {"arena": False} if self._preserve_all and name != "numpy" else {}
        self._runner = TfliteRunner(self._data, backend=name, **options)

    def invoke(self) -> None:
        """One inference on what the input tensors hold."""
        if self._runner is None:
            raise InterpreterStateError("invoke() before allocate_tensors(): call allocate_tensors() first")
        if self._handed:
            self._ensure_safe("invoke()")
        self._runner.run_in_place()

    def reset_all_variables(self) -> None:
        """No tensor of a model the bridge runs is a variable: nothing to reset."""

    def num_subgraphs(self) -> int:
        return 1

    # ------------------------------------------------------------------ details
    def get_input_details(self) -> List[Dict[str, Any]]:
        return [_details(self._model.tensors[i]) for i in self._model.inputs]

    def get_output_details(self) -> List[Dict[str, Any]]:
        return [_details(self._model.tensors[i]) for i in self._model.outputs]

    def get_tensor_details(self, subgraph_index: int = 0) -> List[Dict[str, Any]]:
        if subgraph_index != 0:
            raise TensorAccessError(f"subgraph_index is {subgraph_index!r}: the bridge runs the first subgraph "
                                    f"(index 0) only")
        return [_details(t) for t in self._model.tensors]

    # ------------------------------------------------------------------ tensors
    def _index(self, tensor_index) -> int:
        if isinstance(tensor_index, bool) or not isinstance(tensor_index, (int, np.integer)):
            raise ArgumentTypeError(f"tensor index is {tensor_index!r}, expected an int")
        n = len(self._model.tensors)
        if not 0 <= tensor_index < n:
            raise TensorAccessError(f"tensor index is {int(tensor_index)}, expected one in [0, {n}) (the model's "
                                    f"tensors)")
        return int(tensor_index)

    def _array(self, i: int, writing: bool = False) -> np.ndarray:
        """The numpy view of tensor ``i``'s buffer (a constant: its read-only value)."""
        d = self._model.tensors[i]
        if self._runner is None:
            raise TensorAccessError(f"tensor #{i} {d.name!r} has no memory before allocate_tensors(): call it first")
        array = self._runner.arrays.get(i)
        if array is not None:
            return array.numpy()
        spec = self._runner.plan.model.tensors[i]
        if spec.is_constant:
            if writing:
                raise TensorAccessError(f"tensor #{i} {d.name!r} is a constant of the model: it cannot be set")
            if spec.data.dtype == d.dtype and tuple(spec.data.shape) == tuple(d.shape):
                return spec.data
        raise TensorAccessError(
            f"tensor #{i} {d.name!r} has no buffer in the bridge's plan (an activation fused into its producer, a "
            f"PAD folded into its ADD, or a constant folded at load): graph inputs, outputs and the tensors the plan "
            f"keeps can be read")

    def set_tensor(self, tensor_index, value) -> None:
        """Copy ``value`` (the tensor's dtype and shape: nothing is cast) into tensor ``tensor_index``."""
        i = self._index(tensor_index)
        d = self._model.tensors[i]
        target = self._array(i, writing=True)
        value = np.asarray(value)
        if value.dtype != d.dtype:
            raise TensorDtypeError(f"tensor #{i} {d.name!r} is {d.dtype}, the value is {value.dtype}: nothing is cast "
                                   f"(convert it yourself, e.g. value.astype(np.{d.dtype}))")
        if tuple(value.shape) != tuple(target.shape):
            raise InvalidLayoutError(f"tensor #{i} {d.name!r} has shape {list(target.shape)}, the value "
                                     f"{list(value.shape)}")
        target[...] = value

    def get_tensor(self, tensor_index, subgraph_index: int = 0) -> np.ndarray:
        """A copy of tensor ``tensor_index``'s elements."""
        if subgraph_index != 0:
            raise TensorAccessError(f"subgraph_index is {subgraph_index!r}: the bridge runs the first subgraph "
                                    f"(index 0) only")
        return np.array(self._array(self._index(tensor_index)), order="C")

    def tensor(self, tensor_index) -> Callable[[], np.ndarray]:
        """A function giving a numpy view of tensor ``tensor_index``'s buffer (no copy): hold the
        function, not the view (:class:`InterpreterStateError` on invoke() while a view lives)."""
        i = self._index(tensor_index)
        return lambda: self._view(i)

    def _view(self, i: int) -> np.ndarray:
        lease = self._leases.get(i)
        if lease is None:  # (the buffers never move once allocated)
            lease = self._leases[i] = _Lease(self._array(i))
        view = np.asarray(lease)
        self._handed.append(weakref.ref(view))
        return view

    def resize_tensor_input(self, input_index, tensor_size, strict: bool = False) -> None:
        """Accepted where the shape stays the model's; any other shape is refused (the plan
        fixes every tensor's shape once)."""
        self._ensure_safe("resize_tensor_input()")
        i = self._index(input_index)
        d = self._model.tensors[i]
        size = tuple(int(v) for v in np.array(tensor_size, np.int32).reshape(-1))
        if size != tuple(d.shape):
            raise UnsupportedOptionError(
                f"resize_tensor_input({i}, {list(size)}): tensor #{i} {d.name!r} has shape {list(d.shape)} and the "
                f"bridge plans every tensor's shape once, from the file; convert the model with shape {list(size)} "
                f"instead")

    # ------------------------------------------------------------------ signatures
    def get_signature_list(self) -> Dict[str, Dict[str, List[str]]]:
        return {s.key: {"inputs": sorted(n for n, _ in s.inputs), "outputs": sorted(n for n, _ in s.outputs)}
                for s in self._model.signatures}

    def get_signature_runner(self, signature_key: Optional[str] = None) -> "SignatureRunner":
        sigs = {s.key: s for s in self._model.signatures}
        if signature_key is None:
            if len(sigs) != 1:
                raise UnsupportedOptionError(f"signature_key is None and the model has {len(sigs)} signatures: None "
                                             f"is allowed only for a model with one")
            signature_key = next(iter(sigs))
        if signature_key not in sigs:
            raise UnsupportedOptionError(f"signature_key is {signature_key!r}, expected one of {sorted(sigs)}")
        return SignatureRunner(self, sigs[signature_key])


class SignatureRunner:
    """TFLite's SignatureRunner: ``runner(**inputs)`` -> outputs by signature name (copies)."""

    def __init__(self, interpreter: Interpreter, signature: SignatureDetails):
        self._it = interpreter
        self._inputs = dict(signature.inputs)
        self._outputs = dict(signature.outputs)

    def __call__(self, **kwargs) -> Dict[str, np.ndarray]:
        if len(kwargs) != len(self._inputs):
            raise UnsupportedOptionError(f"{len(kwargs)} inputs given, the signature has {len(self._inputs)}: "
                                         f"{sorted(self._inputs)}")
        for name in kwargs:
            if name not in self._inputs:
                raise UnsupportedOptionError(f"input {name!r} is not the signature's, expected one of "
                                             f"{sorted(self._inputs)}")
        if self._it.runner is None:
            self._it.allocate_tensors()
        for name, value in kwargs.items():
            self._it.set_tensor(self._inputs[name], value)
        self._it.invoke()
        return {name: self._it.get_tensor(i) for name, i in self._outputs.items()}

    def get_input_details(self) -> Dict[str, Dict[str, Any]]:
        return {n: _details(self._it._model.tensors[i]) for n, i in self._inputs.items()}

    def get_output_details(self) -> Dict[str, Dict[str, Any]]:
        return {n: _details(self._it._model.tensors[i]) for n, i in self._outputs.items()}


__all__ = ["Interpreter", "SignatureRunner", "OpResolverType", "load_delegate", "InterpreterStateError",
           "TensorAccessError", "TensorDtypeError", "ModelFileError"]
