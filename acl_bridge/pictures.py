"""Pictures of memory maps (acl_bridge.memory_map): an ``(H, W, 3)`` uint8 image
(:func:`render_rgb`), PNG (:func:`write_png`: a tiny encoder, RGB, filter 0, zlib, standard
library only) and SVG (:func:`to_svg`). Only the CLI draws; the layout core never does.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import numpy as np

from ndarray.errors import InvalidLayoutError, NotRepresentableError

from .memory_map import MAX_CELLS, MemoryMap, descriptor_map, text_map, xla_map  # noqa: F401  (re-exported)

__all__ = [
    "MemoryMap",
    "Geometry",
    "descriptor_map",
    "xla_map",
    "text_map",
    "geometry",
    "check_drawable",
    "render_rgb",
    "encode_png",
    "write_png",
    "to_svg",
    "write_picture",
    "BACKGROUND",
    "GRID_COLOR",
    "PADDING_COLOR",
    "ELEMENT_COLORS",
    "SHARED_COLOR",
    "LABEL_COLOR",
    "MARK_COLOR",
]

# Colors (RGB). Element cells alternate two blues from one plane to the next so planes read
# apart; a cell holding several elements (a stride-0 broadcast) is dark blue.
BACKGROUND = (255, 255, 255)
GRID_COLOR = (200, 200, 200)
PADDING_COLOR = (253, 214, 160)
ELEMENT_COLORS = ((120, 172, 226), (166, 203, 240))
SHARED_COLOR = (60, 110, 180)
LABEL_COLOR = (0, 0, 0)  # the numbers inside element cells
TEXT_COLOR = (70, 70, 70)  # title, legend, row offsets
MARK_COLOR = (220, 30, 30)  # ring around the cell of element 0
PLANE_COLOR = (110, 110, 110)
TILE_COLORS = ((20, 30, 120), (0, 150, 80), (150, 0, 150))

# ---------------------------------------------------------------------------- font (3x5 pixels)
_GLYPHS = {
    "0": "111 101 101 101 111", "1": "010 110 010 010 111", "2": "111 001 111 100 111",
    "3": "111 001 011 001 111", "4": "101 101 111 001 001", "5": "111 100 111 001 111",
    "6": "111 100 111 101 111", "7": "111 001 010 010 010", "8": "111 101 111 101 111",
    "9": "111 101 111 001 111", "A": "010 101 111 101 101", "B": "110 101 110 101 110",
    "C": "011 100 100 100 011", "D": "110 101 101 101 110", "E": "111 100 110 100 111",
    "F": "111 100 110 100 100", "G": "011 100 101 101 011", "H": "101 101 111 101 101",
    "I": "111 010 010 010 111", "J": "001 001 001 101 010", "K": "101 101 110 101 101",
    "L": "100 100 100 100 111", "M": "101 111 111 101 101", "N": "110 101 101 101 101",
    "O": "010 101 101 101 010", "P": "110 101 110 100 100", "Q": "010 101 101 110 011",
    "R": "110 101 110 101 101", "S": "011 100 010 001 110", "T": "111 010 010 010 010",
    "U": "101 101 101 101 111", "V": "101 101 101 101 010", "W": "101 101 111 111 101",
    "X": "101 101 010 101 101", "Y": "101 101 010 010 010", "Z": "111 001 010 100 111",
    " ": "000 000 000 000 000", ".": "000 000 000 000 010", ",": "000 000 000 010 010",
    ":": "000 010 000 010 000", ";": "000 010 000 010 010", "(": "001 010 010 010 001",
    ")": "100 010 010 010 100", "[": "011 010 010 010 011", "]": "110 010 010 010 110",
    "{": "011 010 110 010 011", "}": "110 010 011 010 110", "-": "000 000 111 000 000",
    "+": "000 010 111 010 000", "=": "000 111 000 111 000", "/": "001 001 010 100 100",
    "*": "000 101 010 101 000", "_": "000 000 000 000 111", "@": "010 101 111 100 011",
    "#": "101 111 101 111 101", "'": "010 010 000 000 000", "?": "111 001 011 000 010",
    "<": "001 010 100 010 001", ">": "100 010 001 010 100", "!": "010 010 010 000 010",
    "%": "101 001 010 100 101",
}
_FONT = {ch: np.array([[b == "1" for b in row] for row in rows.split()], dtype=bool) for ch, rows in _GLYPHS.items()}


def _text_size(text: str, scale: int) -> Tuple[int, int]:
    return (max(0, len(text) * 4 - 1) * scale, 5 * scale)


def _draw_text(img: np.ndarray, x: int, y: int, text: str, color, scale: int = 1) -> None:
    for i, ch in enumerate(text.upper()):
        glyph = _FONT.get(ch, _FONT["?"])
        if scale > 1:
            glyph = np.kron(glyph, np.ones((scale, scale), dtype=bool))
        gx = x + i * 4 * scale
        h, w = glyph.shape
        region = img[y : y + h, gx : gx + w]
        region[glyph[: region.shape[0], : region.shape[1]]] = color


# ---------------------------------------------------------------------------- picture
@dataclass(frozen=True)
class Geometry:
    """Where things are in the picture (pixels). Cell ``(r, c)`` has its top-left interior
    pixel at ``(grid_x + gap + c * pitch, grid_y + gap + r * pitch)`` and is ``cell`` wide and
    high; everything else of the grid (gaps, boundaries, the element-0 ring) lies between cells."""

    width: int
    height: int
    cell: int
    gap: int
    grid_x: int
    grid_y: int
    label_scale: int  # 0: no numbers in the cells
    title_lines: Tuple[str, ...] = field(default=())

    @property
    def pitch(self) -> int:
        return self.cell + self.gap

    def cell_origin(self, row: int, column: int) -> Tuple[int, int]:
        return self.grid_x + self.gap + column * self.pitch, self.grid_y + self.gap + row * self.pitch


_MARGIN = 10
_TITLE_SCALE = 2
_LINE = 14  # title line height at scale 2


def _legend_items(m: MemoryMap) -> List[Tuple[str, Tuple[int, int, int], str]]:
    items = [("element", ELEMENT_COLORS[0], "fill"), ("padding", PADDING_COLOR, "fill")]
    if m.shared_cells:
        items.append(("shared", SHARED_COLOR, "fill"))
    if m.element0 >= 0:
        items.append(("element 0", MARK_COLOR, "ring"))
    for period, kind in m.boundaries:
        if kind == "plane":
            items.append(("plane", PLANE_COLOR, "line"))
        else:
            level = int(kind[4:])
            items.append((f"tile {level + 1}" if len(m.boundaries) > 1 else "tile", TILE_COLORS[level % len(TILE_COLORS)], "line"))
    return items


def _legend_text(m: MemoryMap) -> str:
    return "   ".join("    " + name for name, _, _ in _legend_items(m))


def check_drawable(alloc_size: int, title: str) -> None:
    """Refuse a picture of more than MAX_CELLS cells (before its map is built, in the CLI)."""
    if alloc_size > MAX_CELLS:
        raise NotRepresentableError(
            f"the allocation has {alloc_size} cells, expected at most {MAX_CELLS} to draw one "
            f"pixel block per cell: {title}"
        )


def geometry(m: MemoryMap, cell: Optional[int] = None, labels: bool = True) -> Geometry:
    """Picture geometry for ``m``: cell size chosen from the number of cells unless given."""
    check_drawable(m.alloc_size, m.title)
    if cell is None:
        cell = 24 if m.alloc_size <= 8192 else 8 if m.alloc_size <= 65536 else 3
    gap = 2 if cell >= 8 else 1
    longest = len(str(max(int(m.cells.max()), 0))) + (1 if m.shared_cells else 0) if m.alloc_size else 1
    label_scale = 0
    if labels:
        for scale in (2, 1):
            if _text_size("8" * longest, scale)[0] <= cell - 2 and 5 * scale <= cell - 2:
                label_scale = scale
                break
    title_lines = (
        *m.title.split("\n"),
        f"{m.alloc_size} cells = {m.element_cells} holding elements + {m.padding_cells} padding, {m.columns} per row",
        _legend_text(m),
    )
    offset_labels = len(str(max(m.alloc_size - 1, 0))) * 4 + 4 if cell >= 8 else 0
    grid_w = m.columns * (cell + gap) + gap
    grid_h = m.rows * (cell + gap) + gap
    text_w = max(_text_size(t, _TITLE_SCALE)[0] for t in title_lines)
    grid_x = _MARGIN + offset_labels
    grid_y = _MARGIN + len(title_lines) * _LINE + 6
    width = max(grid_x + grid_w, _MARGIN + text_w) + _MARGIN
    height = grid_y + grid_h + _MARGIN
    return Geometry(width, height, cell, gap, grid_x, grid_y, label_scale, title_lines)


def render_rgb(m: MemoryMap, cell: Optional[int] = None, labels: bool = True) -> np.ndarray:
    """The memory map as an ``(H, W, 3)`` uint8 image; see :class:`Geometry` for where cells are.

    Inside a cell, every pixel is its fill color (padding, element, shared) except the label
    digits (LABEL_COLOR, element cells only). Gaps, plane/tile boundaries and the element-0
    ring are drawn between cells only, so pixel counts per color give cell counts.
    """
    g = geometry(m, cell, labels)
    img = np.empty((g.height, g.width, 3), dtype=np.uint8)
    img[...] = BACKGROUND
    # title, stats and legend
    for i, line in enumerate(g.title_lines[:-1]):
        _draw_text(img, _MARGIN, _MARGIN + i * _LINE, line, TEXT_COLOR, _TITLE_SCALE)
    _draw_legend(img, m, _MARGIN, _MARGIN + (len(g.title_lines) - 1) * _LINE)
    # grid background (the gaps)
    rows, cols, pitch = m.rows, m.columns, g.pitch
    img[g.grid_y : g.grid_y + rows * pitch + g.gap, g.grid_x : g.grid_x + cols * pitch + g.gap] = GRID_COLOR
    last = m.alloc_size - (rows - 1) * cols  # cells in the last row
    if rows and last < cols:  # no grid right of the end of the allocation
        x0, y0 = g.cell_origin(rows - 1, last)
        img[y0 : y0 + g.cell + g.gap, x0 : g.grid_x + cols * pitch + g.gap] = BACKGROUND
    # cells
    fill = np.empty((rows * cols, 3), dtype=np.uint8)
    fill[...] = BACKGROUND
    padding = np.zeros(rows * cols, dtype=bool)
    padding[: m.alloc_size] = m.counts == 0
    fill[padding] = PADDING_COLOR
    holding = np.zeros(rows * cols, dtype=bool)
    holding[: m.alloc_size] = m.counts > 0
    shade = np.zeros(rows * cols, dtype=np.int64)
    shade[: m.alloc_size] = m.plane_of(np.maximum(m.cells, 0)) % 2
    for s, color in enumerate(ELEMENT_COLORS):
        fill[holding & (shade == s)] = color
    shared = np.zeros(rows * cols, dtype=bool)
    shared[: m.alloc_size] = m.counts > 1
    fill[shared] = SHARED_COLOR
    block = np.repeat(np.repeat(fill.reshape(rows, cols, 3), g.cell, axis=0), g.cell, axis=1)
    for r in range(rows):  # place row by row: cells are separated by gaps
        y = g.grid_y + g.gap + r * pitch
        for c in range(cols):
            x = g.grid_x + g.gap + c * pitch
            if r * cols + c < m.alloc_size:
                img[y : y + g.cell, x : x + g.cell] = block[r * g.cell : (r + 1) * g.cell, c * g.cell : (c + 1) * g.cell]
    # row offsets
    if g.grid_x - _MARGIN >= 8:
        for r in range(rows):
            text = str(r * cols)
            w = _text_size(text, 1)[0]
            _draw_text(img, g.grid_x - 3 - w, g.grid_y + g.gap + r * pitch + (g.cell - 5) // 2, text, TEXT_COLOR)
    # numbers in element cells
    if g.label_scale:
        for k in np.flatnonzero(m.counts):
            text = str(int(m.cells[k])) + ("*" if m.counts[k] > 1 else "")
            w, h = _text_size(text, g.label_scale)
            x, y = g.cell_origin(k // cols, k % cols)
            _draw_text(img, x + (g.cell - w) // 2, y + (g.cell - h) // 2, text, LABEL_COLOR, g.label_scale)
    # boundaries: deepest tiling level first, so outer boundaries stay on top
    for period, kind in sorted(m.boundaries, key=lambda b: b[0]):
        color = PLANE_COLOR if kind == "plane" else TILE_COLORS[int(kind[4:]) % len(TILE_COLORS)]
        right, below = m.group_edges(period)
        for r, c in zip(*np.nonzero(right)):
            x, y = g.cell_origin(r, c)
            img[y - g.gap : y + g.cell + g.gap, x + g.cell : x + g.cell + g.gap] = color
        for r, c in zip(*np.nonzero(below)):
            x, y = g.cell_origin(r, c)
            img[y + g.cell : y + g.cell + g.gap, x - g.gap : x + g.cell + g.gap] = color
    # element 0: a ring in the gaps around its cell
    if m.element0 >= 0:
        x, y = g.cell_origin(m.element0 // cols, m.element0 % cols)
        ring = img[y - g.gap : y + g.cell + g.gap, x - g.gap : x + g.cell + g.gap]
        inner = ring[g.gap : g.gap + g.cell, g.gap : g.gap + g.cell].copy()
        ring[...] = MARK_COLOR
        ring[g.gap : g.gap + g.cell, g.gap : g.gap + g.cell] = inner
    return img


def _draw_legend(img: np.ndarray, m: MemoryMap, x: int, y: int) -> None:
    """Swatches (10x10) then names, in the order of :func:`_legend_text`."""
    for name, color, style in _legend_items(m):
        sw = img[y : y + 10, x : x + 10]
        if style == "fill":
            sw[...] = color
        elif style == "ring":
            sw[...] = color
            sw[2:8, 2:8] = BACKGROUND
        else:
            sw[4:6, :] = color
        x += 4 * 4 * _TITLE_SCALE
        _draw_text(img, x, y, name, TEXT_COLOR, _TITLE_SCALE)
        x += (len(name) + 3) * 4 * _TITLE_SCALE


def encode_png(rgb: np.ndarray) -> bytes:
    """A PNG file of an ``(H, W, 3)`` uint8 image: 8-bit RGB, no interlace, filter 0 on every row."""
    rgb = np.ascontiguousarray(rgb, dtype=np.uint8)
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.shape[0] < 1 or rgb.shape[1] < 1:
        raise InvalidLayoutError(f"image has shape {rgb.shape}, expected (height >= 1, width >= 1, 3)")
    height, width = rgb.shape[:2]

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = np.zeros((height, 1 + 3 * width), dtype=np.uint8)  # column 0: filter type 0 (None)
    raw[:, 1:] = rgb.reshape(height, 3 * width)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # bit depth 8, color type 2 (RGB)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw.tobytes(), 9))
        + chunk(b"IEND", b"")
    )


def write_png(path, rgb: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(encode_png(rgb))


def _hex(color) -> str:
    return "#%02x%02x%02x" % tuple(color)


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_svg(m: MemoryMap, cell: Optional[int] = None, labels: bool = True) -> str:
    """The same picture as SVG text: one ``<rect class="element|padding|shared">`` per cell,
    boundaries as ``<line class="plane|tile0|...">``, element 0 as ``<rect class="element0">``."""
    g = geometry(m, cell, labels)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{g.width}" height="{g.height}" '
        f'viewBox="0 0 {g.width} {g.height}" font-family="monospace">',
        f'<rect class="background" x="0" y="0" width="{g.width}" height="{g.height}" fill="{_hex(BACKGROUND)}"/>',
    ]
    for i, line in enumerate(g.title_lines[:-1]):
        out.append(f'<text x="{_MARGIN}" y="{_MARGIN + i * _LINE + 10}" font-size="12" fill="{_hex(TEXT_COLOR)}">{_esc(line)}</text>')
    lx, ly = _MARGIN, _MARGIN + (len(g.title_lines) - 1) * _LINE
    for name, color, style in _legend_items(m):
        if style == "line":
            out.append(f'<line class="legend" x1="{lx}" y1="{ly + 5}" x2="{lx + 10}" y2="{ly + 5}" stroke="{_hex(color)}" stroke-width="2"/>')
        else:
            fill = "none" if style == "ring" else _hex(color)
            out.append(f'<rect class="legend" x="{lx}" y="{ly}" width="10" height="10" fill="{fill}" stroke="{_hex(color)}"/>')
        out.append(f'<text x="{lx + 14}" y="{ly + 10}" font-size="12" fill="{_hex(TEXT_COLOR)}">{_esc(name)}</text>')
        lx += 14 + 8 * len(name) + 16
    cols = m.columns
    for k in range(m.alloc_size):
        x, y = g.cell_origin(k // cols, k % cols)
        n = int(m.counts[k])
        if n == 0:
            kind, color = "padding", PADDING_COLOR
        elif n > 1:
            kind, color = "shared", SHARED_COLOR
        else:
            kind, color = "element", ELEMENT_COLORS[int(m.plane_of(np.int64(m.cells[k]))) % 2]
        title = "padding" if n == 0 else f"element {int(m.cells[k])} ({','.join(map(str, m.coordinates(m.cells[k])))})"
        out.append(
            f'<rect class="{kind}" x="{x}" y="{y}" width="{g.cell}" height="{g.cell}" fill="{_hex(color)}" '
            f'stroke="{_hex(GRID_COLOR)}" stroke-width="{g.gap}"><title>offset {k}: {title}</title></rect>'
        )
        if n and g.label_scale:
            out.append(
                f'<text x="{x + g.cell / 2}" y="{y + g.cell / 2 + 4}" font-size="{min(12, g.cell - 4)}" '
                f'text-anchor="middle">{int(m.cells[k])}{"*" if n > 1 else ""}</text>'
            )
    for period, kind in sorted(m.boundaries, key=lambda b: b[0]):
        color = PLANE_COLOR if kind == "plane" else TILE_COLORS[int(kind[4:]) % len(TILE_COLORS)]
        right, below = m.group_edges(period)
        half = g.gap / 2
        for r, c in zip(*np.nonzero(right)):
            x, y = g.cell_origin(r, c)
            out.append(f'<line class="{kind}" x1="{x + g.cell + half}" y1="{y - half}" x2="{x + g.cell + half}" '
                       f'y2="{y + g.cell + half}" stroke="{_hex(color)}" stroke-width="{g.gap}"/>')
        for r, c in zip(*np.nonzero(below)):
            x, y = g.cell_origin(r, c)
            out.append(f'<line class="{kind}" x1="{x - half}" y1="{y + g.cell + half}" x2="{x + g.cell + half}" '
                       f'y2="{y + g.cell + half}" stroke="{_hex(color)}" stroke-width="{g.gap}"/>')
    if m.element0 >= 0:
        x, y = g.cell_origin(m.element0 // cols, m.element0 % cols)
        out.append(f'<rect class="element0" x="{x - g.gap / 2}" y="{y - g.gap / 2}" width="{g.cell + g.gap}" '
                   f'height="{g.cell + g.gap}" fill="none" stroke="{_hex(MARK_COLOR)}" stroke-width="{g.gap}"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def write_picture(path: str, m: MemoryMap, cell: Optional[int] = None, labels: bool = True) -> str:
    """Write ``m`` to ``path`` as PNG or SVG (by extension); returns the format written."""
    lower = str(path).lower()
    if lower.endswith(".png"):
        write_png(path, render_rgb(m, cell, labels))
        return "png"
    if lower.endswith(".svg"):
        with open(path, "w", encoding="utf-8") as f:
            f.write(to_svg(m, cell, labels))
        return "svg"
    raise InvalidLayoutError(f"picture file is {path!r}, expected a name ending in .png or .svg")
