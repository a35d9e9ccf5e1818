"""Images in and out of the face detector, with Pillow (a maintained codec library: PNG,
JPEG, ... are never decoded by hand here).

The model input is MediaPipe's: the picture letterboxed into the square model input (aspect
ratio kept, the rest black), resized bilinearly, RGB scaled to [-1, 1], NHWC float32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Tuple

import numpy as np

from ndarray.errors import AclNdarrayError

from ..format.tflite_reader import INSTALL_MODELS


class ImageError(AclNdarrayError, ValueError):
    """An image that cannot be read or written (with Pillow's reason)."""


def _pil():
    try:
        from PIL import Image, ImageDraw
    except ImportError as e:
        raise ImageError(f"reading and writing images needs Pillow ({INSTALL_MODELS}, or Debian's python3-pil): {e}") from None
    return Image, ImageDraw


@dataclass(frozen=True)
class Letterbox:
    """Where the picture lies in the square model input, as fractions of its side."""

    left: float
    top: float
    right: float
    bottom: float

    def as_tuple(self) -> Tuple[float, float, float, float]:
        return (self.left, self.top, self.right, self.bottom)


def load_rgb(path) -> "object":
    Image, _ = _pil()
    try:
        with Image.open(path) as im:
            return im.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as e:
        raise ImageError(f"cannot read image {str(path)!r}: {e}") from None


def model_input(image, size: Tuple[int, int]) -> Tuple[np.ndarray, Letterbox]:
    """(1, H, W, 3) float32 in [-1, 1] and the letterbox it used."""
    Image, _ = _pil()
    h, w = size
    iw, ih = image.size
    scale = min(w / iw, h / ih)
    nw, nh = max(1, round(iw * scale)), max(1, round(ih * scale))
    canvas = Image.new("RGB", (w, h))
    x0, y0 = (w - nw) // 2, (h - nh) // 2
    canvas.paste(image.resize((nw, nh), Image.BILINEAR), (x0, y0))
    x = np.asarray(canvas, dtype=np.float32)[None] / 127.5 - 1.0
    return x, Letterbox(x0 / w, y0 / h, (w - nw - x0) / w, (h - nh - y0) / h)


def draw_boxes(image, boxes: Sequence[Tuple[float, float, float, float]], path, labels: Sequence[str] = (),
               points: Sequence[np.ndarray] = ()) -> None:
    """Write ``image`` with the boxes (pixels) drawn, as PNG (or what ``path``'s suffix says);
    ``points``: arrays of (x, y, ...) rows drawn as dots (face landmarks)."""
    _, ImageDraw = _pil()
    out = image.copy()
    draw = ImageDraw.Draw(out)
    width = max(2, round(max(out.size) / 200))
    for k, box in enumerate(boxes):
        draw.rectangle([float(v) for v in box], outline=(255, 40, 40), width=width)
        if k < len(labels):
            draw.text((box[0] + width, box[1] + width), labels[k], fill=(255, 40, 40))
    r = max(1, width // 2)
    for rows in points:
        for x, y in np.asarray(rows, np.float64)[:, :2]:
            draw.ellipse([x - r, y - r, x + r, y + r], fill=(40, 220, 80))
    try:
        out.save(path)
    except (OSError, ValueError) as e:
        raise ImageError(f"cannot write image {str(path)!r}: {e}") from None


__all__ = ["ImageError", "Letterbox", "load_rgb", "model_input", "draw_boxes"]
