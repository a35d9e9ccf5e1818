"""The same .tflite file through Arm NN's own TfLite parser (pyarmnn ``ITfLiteParser``) on
the CpuAcc backend: the second reference runtime of the model tests and the demo.

pyarmnn is imported through :func:`acl_bridge.armnn.load` (its import chatter captured).
Anything Arm NN refuses ends in :class:`~acl_bridge.armnn.ArmnnError` carrying Arm NN's
exact message, so tests and the demo can record it instead of crashing.
"""

from __future__ import annotations

import os
import time
from typing import Dict, Optional, Sequence

import numpy as np

from ndarray.errors import UnsupportedOptionError
from ndarray.strides import as_int

from ... import armnn
from ...layout import check_int
from ..profiling.armnn_profile import ArmnnProfile, parse_armnn_profile


def _flat(message) -> str:
    return " ".join(str(message).split())


#: Arm NN data types of a network input, as numpy dtypes (what :meth:`ArmnnTfliteModel.run` feeds)
_INPUT_DTYPES = {"DataType_Float32": np.float32, "DataType_QAsymmS8": np.int8, "DataType_QAsymmU8": np.uint8,
                 "DataType_Signed32": np.int32}


def thread_option_support() -> Optional[str]:
    """None where this pyarmnn can pass CpuAcc's ``NumberOfThreads`` model option (Arm NN
    23.08: ``BackendOptions`` and ``OptimizerOptions.m_ModelOptions``), else why not (20.08's
    pyarmnn has neither: its CpuAcc runs on whatever ACL's scheduler is set to)."""
    ann = armnn.load()
    if not hasattr(ann, "BackendOptions") or not hasattr(ann.OptimizerOptions(), "m_ModelOptions"):
        return (f"pyarmnn {armnn.armnn_version()} has no BackendOptions / OptimizerOptions.m_ModelOptions: "
                f"CpuAcc's NumberOfThreads option cannot be passed")
    return None


class ArmnnTfliteModel:
    """A .tflite model parsed by Arm NN's ITfLiteParser and loaded on ``backends``."""

    def __init__(self, path, backends: Sequence[str] = ("CpuAcc",), number_of_threads: Optional[int] = None):
        """``number_of_threads``: CpuAcc's ``NumberOfThreads`` model option (1-64; Arm NN sets
        ACL's scheduler to it when it loads the network), None to leave ACL's scheduler as
        the process set it; refused where :func:`thread_option_support` says why not."""
        ann = armnn.load()
        if number_of_threads is not None:
            why = thread_option_support()
            if why is not None:
                raise armnn.ArmnnUnavailableError(why)
            if not 1 <= as_int(number_of_threads, "number_of_threads") <= 64:  # a bool or a float: ArgumentTypeError
                raise UnsupportedOptionError(f"number_of_threads is {number_of_threads!r}, expected an int in "
                                             f"1..64 (Arm NN's own bounds) or None")
        if not hasattr(ann, "ITfLiteParser"):
            raise armnn.ArmnnUnavailableError(
                f"pyarmnn {armnn.armnn_version()} has no ITfLiteParser (Arm NN built without its TfLite parser)")
        t0 = time.perf_counter()  # the three steps of Arm NN's start, timed apart (self.seconds)
        try:
            self.parser = ann.ITfLiteParser()
            self.network = self.parser.CreateNetworkFromBinaryFile(str(path))
            input_names = self.parser.GetSubgraphInputTensorNames(0)
            self.output_names = tuple(self.parser.GetSubgraphOutputTensorNames(0))
            self.inputs = [self.parser.GetNetworkInputBindingInfo(0, n) for n in input_names]
            self.outputs = [self.parser.GetNetworkOutputBindingInfo(0, n) for n in self.output_names]
        except Exception as e:  # pyarmnn raises RuntimeError / its own exception types
            raise armnn.ArmnnError(f"Arm NN's TfLite parser refused {path}: {_flat(e)}") from None
        t1 = time.perf_counter()
        self.runtime = ann.IRuntime(ann.CreationOptions())
        try:
            options = ann.OptimizerOptions()
            if number_of_threads is not None:
                cpu_acc = ann.BackendOptions(ann.BackendId("CpuAcc"))
                cpu_acc.AddOption(ann.BackendOption("NumberOfThreads", number_of_threads))
                options.m_ModelOptions = [cpu_acc]
            opt, _ = ann.Optimize(self.network, [ann.BackendId(b) for b in backends], self.runtime.GetDeviceSpec(),
                                  options)
            t2 = time.perf_counter()
            self.net_id, _ = self.runtime.LoadNetwork(opt)
        except Exception as e:
            raise armnn.ArmnnError(f"Arm NN could not load {path} on {list(backends)}: {_flat(e)}") from None
        # seconds of the parse, of the runtime made and the network optimized, of its load
        self.seconds = {"parse": t1 - t0, "optimize": t2 - t1, "load": time.perf_counter() - t2}
        self.backends = tuple(backends)
        self.model_name = os.path.basename(os.fspath(path))
        self.number_of_threads = number_of_threads
        self._ann = ann
        kind = next((k for k in _INPUT_DTYPES if getattr(ann, k, None) == self.inputs[0][1].GetDataType()), None)
        if kind is None:
            raise armnn.ArmnnError(f"the input of {path} has Arm NN data type {self.inputs[0][1].GetDataType()}, "
                                   f"expected one of {sorted(_INPUT_DTYPES)}")
        self.input_dtype = np.dtype(_INPUT_DTYPES[kind])
        self._input_shape = tuple(self.inputs[0][1].GetShape()[i] for i in range(self.inputs[0][1].GetNumDimensions()))

    def run(self, x: np.ndarray) -> Dict[str, np.ndarray]:
        """One inference (Arm NN tensors are dense: the input is read from ``x``'s memory, in
        the input's own dtype: :attr:`input_dtype`)."""
        ann = self._ann
        x = np.ascontiguousarray(x, dtype=self.input_dtype)
        info = self.inputs[0][1]
        if hasattr(info, "SetConstant"):  # Arm NN >= 22.x wants constant input infos
            info.SetConstant(True)
        try:
            inputs = ann.make_input_tensors([self.inputs[0]], [x])
            outputs = ann.make_output_tensors(self.outputs)
            self.runtime.EnqueueWorkload(self.net_id, inputs, outputs)
            arrays = ann.workload_tensors_to_ndarray(outputs)
        except Exception as e:
            raise armnn.ArmnnError(f"Arm NN inference failed: {_flat(e)}") from None
        return {name: np.asarray(a) for name, a in zip(self.output_names, arrays)}

    def profile(self, x: Optional[np.ndarray] = None, rounds: int = 5) -> ArmnnProfile:
        """Arm NN's own per-layer profile (its IProfiler) of ``rounds`` inferences on ``x``
        (zeros by default), after one unprofiled inference (the first prepares weights):
        :mod:`.armnn_profile`."""
        rounds = check_int(rounds, "rounds", minimum=1)
        if x is None:
            x = np.zeros(self._input_shape, self.input_dtype)
        self.run(x)
        profiler = self.runtime.GetProfiler(self.net_id)
        profiler.EnableProfiling(True)
        try:
            for _ in range(rounds):
                self.run(x)
        finally:
            profiler.EnableProfiling(False)
        return parse_armnn_profile(profiler.as_json(), self.model_name, last=rounds)

    def __del__(self):
        try:
            self.runtime.UnloadNetwork(self.net_id)
        except Exception:
            pass


__all__ = ["ArmnnTfliteModel", "thread_option_support"]
