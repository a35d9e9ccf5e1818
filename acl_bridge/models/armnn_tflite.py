"""The same .tflite file through Arm NN's own TfLite parser (pyarmnn ``ITfLiteParser``) on
the CpuAcc backend: the second reference runtime of the model tests and the demo.

pyarmnn is imported through :func:`acl_bridge.armnn.load` (its import chatter captured).
Anything Arm NN refuses ends in :class:`~acl_bridge.armnn.ArmnnError` carrying Arm NN's
exact message, so tests and the demo can record it instead of crashing.
"""

from __future__ import annotations

from typing import Dict, Sequence

import numpy as np

from .. import armnn


def _flat(message) -> str:
    return " ".join(str(message).split())


class ArmnnTfliteModel:
    """A .tflite model parsed by Arm NN's ITfLiteParser and loaded on ``backends``."""

    def __init__(self, path, backends: Sequence[str] = ("CpuAcc",)):
        ann = armnn.load()
        if not hasattr(ann, "ITfLiteParser"):
            raise armnn.ArmnnUnavailableError(
                f"pyarmnn {armnn.armnn_version()} has no ITfLiteParser (Arm NN built without its TfLite parser)")
        try:
            self.parser = ann.ITfLiteParser()
            self.network = self.parser.CreateNetworkFromBinaryFile(str(path))
            input_names = self.parser.GetSubgraphInputTensorNames(0)
            self.output_names = tuple(self.parser.GetSubgraphOutputTensorNames(0))
            self.inputs = [self.parser.GetNetworkInputBindingInfo(0, n) for n in input_names]
            self.outputs = [self.parser.GetNetworkOutputBindingInfo(0, n) for n in self.output_names]
        except Exception as e:  # pyarmnn raises RuntimeError / its own exception types
            raise armnn.ArmnnError(f"Arm NN's TfLite parser refused {path}: {_flat(e)}") from None
        self.runtime = ann.IRuntime(ann.CreationOptions())
        try:
            opt, _ = ann.Optimize(self.network, [ann.BackendId(b) for b in backends], self.runtime.GetDeviceSpec(),
                                  ann.OptimizerOptions())
            self.net_id, _ = self.runtime.LoadNetwork(opt)
        except Exception as e:
            raise armnn.ArmnnError(f"Arm NN could not load {path} on {list(backends)}: {_flat(e)}") from None
        self.backends = tuple(backends)
        self._ann = ann
        self._input_shape = tuple(self.inputs[0][1].GetShape()[i] for i in range(self.inputs[0][1].GetNumDimensions()))

    def run(self, x: np.ndarray) -> Dict[str, np.ndarray]:
        """One inference (Arm NN tensors are dense: the input is read from ``x``'s memory)."""
        ann = self._ann
        x = np.ascontiguousarray(x, dtype=np.float32)
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

    def __del__(self):
        try:
            self.runtime.UnloadNetwork(self.net_id)
        except Exception:
            pass


__all__ = ["ArmnnTfliteModel"]
