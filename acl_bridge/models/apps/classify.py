"""Image classification with published TFLite classifiers (float or int8), on any backend.

``acl-ndarray classify IMAGE --model visual_wake_words`` resizes the picture to the model's
input, turns pixels into the model's input values, runs the model and prints every class with
its score, best first. A classifier here is a model file plus what the file does not say:

* its class names, in the order of the output vector;
* how pixels (0-255, RGB) become the model's real-valued input: ``(pixel - offset) / divisor``.

An int8 input is then quantized with the input tensor's own scale and zero point (round half
away from zero, as TFLite's QUANTIZE, clamped to int8), and an int8 output dequantized with the
output tensor's: the caller sees real scores whichever way the model was converted.

The published models (Silicon Labs' MLTK 0.20.0 wheel, MLPerf Tiny's reference networks;
``acl-ndarray fetch``):

* ``visual_wake_words``: MobileNetV1-0.25 on 96x96 RGB, pixels as they are (the model's own
  QUANTIZE takes float32 0-255); classes ``person``, ``non_person`` in that order (the MLTK
  model definition's ``my_model.classes``; on the astronaut photograph TFLite's interpreter
  gives 0.84 to index 0, on seeded noise 0.996 to index 1).
* ``image_classification``: ResNet-8 on 32x32 CIFAR-10 images, trained on ``(pixel - 128) /
  128`` (the model definition's dataset loader), int8 in (scale 1/128, zero point 0) and out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ndarray.errors import UnsupportedOptionError


@dataclass(frozen=True)
class Classifier:
    """What a classifier's file does not say: class names and pixel scaling."""

    labels: Tuple[str, ...]
    pixel_offset: float = 0.0
    pixel_divisor: float = 1.0


CLASSIFIERS: Dict[str, Classifier] = {
    "visual_wake_words": Classifier(("person", "non_person")),
    "image_classification": Classifier(("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse",
                                        "ship", "truck"), pixel_offset=128.0, pixel_divisor=128.0),
}


@dataclass(frozen=True)
class Score:
    label: str
    score: float


def quantize(real: np.ndarray, scale: float, zero_point: int, dtype: np.dtype) -> np.ndarray:
    """TFLite's QUANTIZE: round(real / scale) half away from zero, plus the zero point, clamped."""
    info = np.iinfo(dtype)
    q = np.trunc(real.astype(np.float64) / scale + np.copysign(0.5, real)) + zero_point
    return np.clip(q, info.min, info.max).astype(dtype)


def model_input(image, shape: Sequence[int], dtype: np.dtype, quantization: Optional[Tuple[float, int]],
                classifier: Classifier) -> np.ndarray:
    """The picture (a Pillow RGB image) as the model's input array: resized bilinearly to the
    input's height and width (no letterbox: the classifiers were trained on whole frames),
    scaled, and quantized when the input is an integer tensor."""
    from .images import _pil

    Image, _ = _pil()
    if len(shape) != 4 or shape[0] != 1 or shape[3] != 3:
        raise UnsupportedOptionError(f"classify takes models with one 1xHxWx3 image input, this one has "
                                     f"{list(shape)}")
    h, w = int(shape[1]), int(shape[2])
    pixels = np.asarray(image.resize((w, h), Image.BILINEAR), np.float32)[None]
    real = (pixels - np.float32(classifier.pixel_offset)) / np.float32(classifier.pixel_divisor)
    if np.issubdtype(dtype, np.floating):
        return real.astype(dtype)
    if quantization is None:
        raise UnsupportedOptionError(f"the model's input is {np.dtype(dtype)} without quantization parameters")
    return quantize(real, quantization[0], quantization[1], np.dtype(dtype))


def scores(output: np.ndarray, quantization: Optional[Tuple[float, int]], labels: Sequence[str]) -> List[Score]:
    """Real scores of the output vector, with their labels, best first."""
    v = np.asarray(output).reshape(-1)
    if v.size != len(labels):
        raise UnsupportedOptionError(f"the model gives {v.size} scores, the classifier has {len(labels)} labels")
    if not np.issubdtype(v.dtype, np.floating):
        if quantization is None:
            raise UnsupportedOptionError(f"the model's output is {v.dtype} without quantization parameters")
        v = (v.astype(np.float64) - quantization[1]) * quantization[0]
    order = np.argsort(-v, kind="stable")
    return [Score(labels[k], float(v[k])) for k in order]


def _per_tensor(spec: Any) -> Optional[Tuple[float, int]]:
    q = spec.quantization
    if q is None or len(q.scale) != 1:
        return None
    return float(q.scale[0]), int(q.zero_point[0]) if q.zero_point else 0


def classify(image, run: Callable[[np.ndarray], Mapping[str, np.ndarray]], plan: Any,
             classifier: Classifier) -> List[Score]:
    """Scores for the picture from ``run`` (an executor of ``plan``: the bridge's runner on ACL or
    the numpy plan), best first."""
    model = plan.model
    outputs = [model.tensors[i] for i in model.outputs]
    if len(model.inputs) != 1 or len(outputs) != 1 or int(np.prod(outputs[0].shape)) != len(classifier.labels):
        raise UnsupportedOptionError(
            f"the model is not a classifier of these {len(classifier.labels)} classes: it has {len(model.inputs)} "
            f"input(s) and the outputs " + ", ".join(f"{t.name} {list(t.shape)}" for t in outputs)
            + f"; a classifier has one image input and one output of {len(classifier.labels)} scores "
            f"({', '.join(classifier.labels)})")
    x_spec = model.tensors[model.inputs[0]]
    y_spec = outputs[0]
    x = model_input(image, x_spec.shape, x_spec.dtype, _per_tensor(x_spec), classifier)
    outputs = run(x)
    return scores(outputs[y_spec.name], _per_tensor(y_spec), classifier.labels)


def classifier_named(name: str) -> Classifier:
    if name not in CLASSIFIERS:
        raise UnsupportedOptionError(f"model is {name!r}, expected one of {sorted(CLASSIFIERS)}")
    return CLASSIFIERS[name]


__all__ = ["Classifier", "CLASSIFIERS", "Score", "classify", "classifier_named", "model_input", "quantize", "scores"]
