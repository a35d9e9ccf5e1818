"""Images in and out of the face detector, with Pillow (a maintained codec library: PNG,
JPEG, ... are never decoded by hand here).

A picture becomes 8-bit RGB the way Pillow's users expect (:func:`to_rgb`): turned upright
by its EXIF orientation; palette, grey, CMYK, YCbCr, LAB and HSV pictures by Pillow's own
conversion; 16-bit grey (``I;16*``, and ``I`` holding 0..65535, as Pillow opens 16-bit PNGs)
scaled to 8 bits, not clipped; transparency (RGBA, LA, PA, a palette's transparent colour)
composited over black, the colour of the letterbox around the picture. Refused, naming the
mode: 32-bit floating point (``F``: no defined black and white), ``I`` outside 0..65535.

The model input is MediaPipe's: the picture letterboxed into the square model input (aspect
ratio kept, the rest black), resized bilinearly, RGB scaled to [-1, 1], NHWC float32.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Tuple

import numpy as np

from ndarray.errors import AclNdarrayError, MissingPackageError

from ..format.files import open_regular
from ..format.tflite_reader import INSTALL_MODELS


class ImageError(AclNdarrayError, ValueError):
    """An image that cannot be read or written (with Pillow's reason)."""


def _pil():
    try:
        from PIL import Image, ImageDraw
    except ImportError as e:
        raise MissingPackageError(f"reading and writing images needs Pillow ({INSTALL_MODELS}, or Debian's "
                                  f"python3-pil): {e}") from None
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
    """The picture at ``path`` as an 8-bit RGB Pillow image (:func:`to_rgb`). OSError (naming
    the path) when the file cannot be read; ImageError when it is not a picture that can be used."""
    Image, _ = _pil()
    from PIL import ImageOps

    with open_regular(path, "picture") as f:
        try:
            with Image.open(f) as im:
                im.load()
                return to_rgb(ImageOps.exif_transpose(im), str(path))
        except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as e:  # Pillow's reasons
            raise ImageError(f"cannot read image {str(path)!r}: {' '.join(str(e).split())}") from None


def to_rgb(im, where: str = "the picture") -> "object":
    """``im`` as 8-bit RGB (the module's rules); ImageError for a mode that has no such picture."""
    Image, _ = _pil()
    mode = im.mode
    if mode == "F":
        raise ImageError(f"{where} is 32-bit floating point (Pillow mode F), which has no defined black and white: "
                         f"save it with 8 or 16 bits per channel")
    if mode.startswith("I"):  # I;16, I;16B, I;16L, I;16N, I (32-bit integers)
        grey = np.asarray(im, np.int64)
        if grey.size and (grey.min() < 0 or grey.max() > 65535):
            raise ImageError(f"{where} is 32-bit integer grey (Pillow mode {mode}) with values {grey.min()}.."
                             f"{grey.max()}, outside 16 bits (0..65535): scale it to 8 or 16 bits per channel")
        return Image.fromarray(np.round(grey / 257.0).astype(np.uint8), "L").convert("RGB")
    if mode in ("La", "RGBa"):  # premultiplied alpha: Pillow un-multiplies on the way to LA / RGBA
        im = im.convert("LA" if mode == "La" else "RGBA")
    if "A" in im.mode.replace("LAB", "") or "transparency" in im.info:
        rgba = im.convert("RGBA")
        return Image.alpha_composite(Image.new("RGBA", rgba.size, (0, 0, 0, 255)), rgba).convert("RGB")
    try:
        return im.convert("RGB")
    except ValueError as e:
        raise ImageError(f"{where} is a Pillow mode {mode} picture, which cannot become RGB: {e}") from None


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


def writable_suffixes() -> tuple:
    """The file name endings Pillow can write a picture to (.png, .jpg, ...), sorted."""
    Image, _ = _pil()
    Image.init()
    return tuple(sorted(ext for ext, fmt in Image.registered_extensions().items() if fmt in Image.SAVE))


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
    except ValueError as e:  # a format Pillow cannot write
        raise ImageError(f"cannot write image {str(path)!r}: {e}") from None
    except OSError as e:  # a file that cannot be written (exit 1), named
        raise OSError(e.errno, e.strerror, str(path)) from None


__all__ = ["ImageError", "Letterbox", "load_rgb", "to_rgb", "model_input", "draw_boxes", "writable_suffixes"]
