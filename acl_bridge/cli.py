"""``python -m acl_bridge`` / ``acl-ndarray``: look at layouts and at the ACL installation.

    acl-ndarray --version
    acl-ndarray info [--json]
    acl-ndarray describe --shape 2,2,5,5 [--dtype float32] [--order c|f]
                         [--paddings 0,0,1,1 [--padding-offsets 0,0,0,0]]
                         [--strides 72,36,6,1 [--offset 0] [--alloc-size 144]]
                         [--acl-auto-padding | --acl-padding TOP,RIGHT,BOTTOM,LEFT]
    acl-ndarray describe --xla 'F32[3,5]{1,0:T(2,2)}'
    acl-ndarray describe --directml FLOAT32 --sizes 1,1,3,5 [--strides 15,1,5,1] [--total-size BYTES]
        common: [--index 2,3] [--data-layout NCHW|NHWC] [--coords] [--columns N] [--no-map]
                [--json] [--out FILE.png|FILE.svg]
    acl-ndarray demo [--runs N] [--threads N] [--backend neon|cl] [--skip bridge|armnn] [--strict] [--seed N]
    acl-ndarray detect IMAGE [--json] ...        (acl_bridge.models.apps.cli_commands)
    acl-ndarray classify IMAGE [--model visual_wake_words] [--json]
    acl-ndarray run-tflite MODEL INPUT --out OUT.npz [--json]
    acl-ndarray inspect MODEL [--json]
    acl-ndarray fetch [--image-wheels] [--progress] [--json]

Exit codes: 0 done, 1 failure (a file that cannot be read or written, a missing optional
package, the native layer, a download), 2 bad input (usage, an invalid layout, a model,
picture or input whose content cannot be used). docs/cli.md states the rule in full. Errors are one
line on stderr, never a traceback; :func:`exit_code_for` is the one place that turns the
library's exception types into exit codes. ``--traceback`` anywhere on the command line shows
the Python traceback as well. Output cut short by its reader (``describe | head``) ends
quietly with exit 0.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import math
import os
import platform
import re
import sys
import traceback
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ndarray.errors import AclNdarrayError

PROG = "acl-ndarray"
EXIT_OK, EXIT_RUNTIME, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """Bad command-line input: exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of printing usage and exiting."""

    def error(self, message: str):  # noqa: D401 (argparse's signature)
        raise UsageError(f"{message} (see '{self.prog} --help')")


# ---------------------------------------------------------------------------- parsing helpers
# The one grammar of integer text on the command line: ASCII digits with an optional minus
# (no '+', '_', spaces inside a number or other scripts' digits, which int() would take).
_INTEGER = re.compile(r"-?[0-9]+")


def _ints(text: str, option: str) -> Tuple[int, ...]:
    """'2,2,5,5' -> (2, 2, 5, 5); '()' -> () (a 0-d layout, said explicitly). Nothing else:
    not '' (a forgotten value), not '2x3' or '(2, 3)' (one form, documented in docs/cli.md)."""
    if text == "()":
        return ()
    items = text.split(",")
    if not all(_INTEGER.fullmatch(item.strip()) for item in items):
        raise UsageError(f"{option} is {text!r}, expected comma-separated integers such as 2,2,5,5 "
                         f"(or () for a 0-d layout)")
    return tuple(int(item) for item in items)


def _int(text: str, option: str) -> int:
    """'12' or '-3' -> the integer; anything else (including '', '+3', '1_000') is refused."""
    if not _INTEGER.fullmatch(text.strip()):
        raise UsageError(f"{option} is {text!r}, expected an integer such as 12")
    return int(text)


# ---------------------------------------------------------------------------- parser
def version() -> str:
    """The package's version (acl_bridge/_version.py, the one place pyproject.toml reads it from)."""
    from ._version import __version__

    return __version__


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Padded-buffer NdArray layouts and their Arm Compute Library tensors.",
        epilog="Exit codes: 0 done, 1 failure, 2 bad input. --traceback anywhere on the command line shows "
               "Python tracebacks on errors.",
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {version()}")
    sub = parser.add_subparsers(dest="command", metavar="{info,describe,demo,detect,classify,run-tflite,inspect,fetch}",
                                parser_class=_Parser)

    i = sub.add_parser("info", help="ACL and Arm NN versions, CPU features, threads, OpenCL platforms")
    i.add_argument("--json", action="store_true", help="print the facts as one JSON object")

    d = sub.add_parser(
        "describe",
        help="strides, offset, paddings, ACL mapping and memory map of a layout",
        description="Describe a layout given as a shape (with strides or paddings), XLA text or DirectML sizes/strides.",
    )
    src = d.add_argument_group("layout as a shape (ndarray.ShapeDescriptor; all in elements)")
    src.add_argument("--shape", help="logical shape, outermost first: 2,2,5,5")
    src.add_argument("--dtype", default=None, help="numpy dtype (default float32)")
    src.add_argument("--order", choices=("c", "f"), default="c", help="memory order of the (padded) buffer")
    src.add_argument("--strides", help="element strides (with --shape or --directml)")
    src.add_argument("--offset", help="elements from the allocation start to element 0 (with --strides)")
    src.add_argument("--alloc-size", help="elements in the whole allocation (with --strides)")
    src.add_argument("--paddings", help="per-dimension padding of a libnd4j padded buffer: 0,0,1,1")
    src.add_argument("--padding-offsets", help="index of element 0 inside the padded buffer: 0,0,1,1")
    src.add_argument("--acl-auto-padding", action="store_true",
                     help="the layout ACL's TensorInfo::auto_padding() gives --shape")
    src.add_argument("--acl-padding", metavar="TOP,RIGHT,BOTTOM,LEFT",
                     help="ACL PaddingSize around the x-y plane of --shape")
    xs = d.add_argument_group("layout as XLA text (ndarray.formats.xla)")
    xs.add_argument("--xla", metavar="TEXT", help="e.g. 'F32[3,5]{1,0:T(2,2)}'")
    ds = d.add_argument_group("layout as a DirectML buffer tensor (ndarray.formats.directml)")
    ds.add_argument("--directml", metavar="DATA_TYPE", help="FLOAT32, UINT8, ... (with --sizes)")
    ds.add_argument("--sizes", help="DirectML sizes, outermost first: 1,1,3,5")
    ds.add_argument("--total-size", help="TotalTensorSizeInBytes (default: DMLCalcBufferTensorSize)")
    out = d.add_argument_group("output")
    out.add_argument("--index", help="also print where the element at this index is: 2,3")
    out.add_argument("--data-layout", choices=("NCHW", "NHWC"), default="NCHW", help="label of the ACL tensor")
    out.add_argument("--coords", action="store_true", help="memory map cells show coordinates, not linear indices")
    out.add_argument("--columns", help="cells per row of the memory map (default: the innermost padded extent)")
    out.add_argument("--no-map", action="store_true", help="no text memory map")
    out.add_argument("--json", action="store_true", help="print the facts as JSON (no memory map)")
    out.add_argument("--out", metavar="FILE", help="draw the memory map to FILE.png or FILE.svg")
    out.add_argument("--cell", help="cell size in pixels for --out (default: from the number of cells)")

    m = sub.add_parser("demo", help="a small CNN on ACL and Arm NN, checked against numpy (needs the native ACL layer)",
                       description="A small CNN three ways (ACL's functions on padded NdArrays, Arm NN on CpuAcc, "
                                   "a float64 numpy reference), each path that can run here compared with numpy. "
                                   "Exit 0 PASS, 1 FAIL or SKIPPED (no path could run here), 2 bad options.")
    if importlib.util.find_spec("acl_bridge.demo") is not None:
        importlib.import_module("acl_bridge.demo").add_arguments(m)
    else:  # an install without the demo: cmd_demo says so, whatever the options
        m.add_argument("args", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    from .models.apps.cli_commands import register as register_model_commands  # detect, run-tflite

    register_model_commands(sub)
    return parser


# ---------------------------------------------------------------------------- info
def _guard(fn):
    """fn() or a one-line reason: info must never crash."""
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - report, never crash
        return f"unavailable ({type(e).__name__}: {e})"


def _armnn_version() -> str:
    """Arm NN's version through acl_bridge.armnn (which keeps pyarmnn's import chatter off
    stdout), else pyarmnn directly: ``ARMNN_VERSION`` or ``GetVersion()``."""
    try:
        from acl_bridge.armnn import armnn_available
    except ImportError:
        armnn_available = None
    if armnn_available is not None:
        ok, text = armnn_available()
        return text if ok else f"not installed ({text})"
    import contextlib
    import io
    import warnings

    try:
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pyarmnn  # type: ignore
    except ModuleNotFoundError:
        return "not installed"
    except Exception as e:  # noqa: BLE001 - a broken install
        return f"not installed ({type(e).__name__}: {e})"
    version = getattr(pyarmnn, "ARMNN_VERSION", None)
    if version is None and hasattr(pyarmnn, "GetVersion"):
        version = pyarmnn.GetVersion()
    return f"pyarmnn {version}"


def _proc_cpu_features() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip().lower() in ("features", "flags"):
                    return value.strip()
    except OSError as e:
        return f"unavailable ({e})"
    return "unavailable (no Features/flags line in /proc/cpuinfo)"


def _opencl(native) -> str:
    from acl_bridge import opencl

    if opencl.cl_available():  # platforms and devices as ACL sees them (docs/opencl.md)
        return opencl.describe().replace("\n", "\n" + " " * 16)
    for name in ("opencl_platforms", "opencl_report", "cl_platforms"):
        fn = getattr(native, name, None) if native is not None else None
        if callable(fn):
            value = fn()
            if isinstance(value, (list, tuple)):
                return "; ".join(map(str, value)) if value else "none"
            return str(value)
    vendors = "/etc/OpenCL/vendors"
    icds = sorted(os.listdir(vendors)) if os.path.isdir(vendors) else []
    if icds:
        return f"not probed by the native layer; ICD files in {vendors}: {', '.join(icds)}"
    return f"none found (the native layer does not probe OpenCL; no ICD files in {vendors})"


def cmd_info(args, out, err) -> int:
    import numpy as np

    try:
        from acl_bridge import native
    except Exception as e:  # noqa: BLE001 - a broken native.py must not break info
        native, ok, reason = None, False, f"acl_bridge.native could not be imported: {type(e).__name__}: {e}"
    else:
        try:
            ok, reason = native.native_available()
        except Exception as e:  # noqa: BLE001
            ok, reason = False, f"native_available() failed: {type(e).__name__}: {e}"
    rows: List[Tuple[str, str]] = [
        ("acl-ndarray", version()),
        ("python", f"{platform.python_version()} ({sys.executable})"),
        ("numpy", np.__version__),
        ("machine", f"{platform.machine()} {platform.system()} {platform.release()}"),
    ]
    if ok:
        rows.append(("ACL", _guard(lambda: f"{native.acl_version()} ({reason})")))
        report = _guard(native.cpu_report)
        rows.append(("CPU (ACL)", str(report)))
        rows.append(("threads", _guard(lambda: str(native.num_threads()))))
    else:
        rows.append(("ACL", f"native layer not available: {reason}"))
        rows.append(("threads", f"unknown without the native layer (os.cpu_count() = {os.cpu_count()})"))
    rows.append(("CPU features", _proc_cpu_features() + " (from /proc/cpuinfo)"))
    rows.append(("Arm NN", _guard(_armnn_version)))
    rows.append(("OpenCL", _guard(lambda: _opencl(native))))
    if args.json:
        print(json.dumps(dict(rows), indent=2), file=out)
        return EXIT_OK
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key.ljust(width)}  {value}", file=out)
    return EXIT_OK


# ---------------------------------------------------------------------------- describe
def _join(values) -> str:
    return ",".join(str(int(v)) for v in values)


def _descriptor_facts(d, data_layout: str) -> Dict[str, Any]:
    from acl_bridge import tensor_info
    from ndarray import LayoutError
    from ndarray.dtypes import dtype_text

    facts: Dict[str, Any] = {
        "layout": repr(d),
        "dtype": dtype_text(d.dtype),
        "itemsize": d.itemsize,
        "shape": list(d.shape),
        "order": d.order,
        "strides": list(d.strides),
        "strides_in_bytes": list(d.strides_in_bytes),
        "offset": d.offset,
        "offset_in_bytes": d.offset_in_bytes,
        "alloc_size": d.alloc_size,
        "alloc_size_in_bytes": d.alloc_size_in_bytes,
        "padded_shape": list(d.padded_shape),
        "paddings": list(d.paddings),
        "padding_offsets": list(d.padding_offsets),
        "ews": d.ews,
        "contiguous_c": d.is_contiguous("c"),
        "contiguous_f": d.is_contiguous("f"),
        "has_padded_buffer": d.has_padded_buffer,
        "overlaps": d.overlaps,
    }
    try:
        info = tensor_info(d, data_layout=data_layout)
    except LayoutError as e:
        facts["acl"] = {"error": f"{type(e).__name__}: {e}"}
    else:
        facts["acl"] = {
            "tensor_shape": list(info.tensor_shape),
            "strides_in_bytes": list(info.strides_in_bytes),
            "offset_first_element_in_bytes": info.offset_first_element_in_bytes,
            "total_size_in_bytes": info.total_size_in_bytes,
            "padding": {"top": info.padding.top, "right": info.padding.right,
                        "bottom": info.padding.bottom, "left": info.padding.left},
            "data_type": info.data_type,
            "data_layout": info.data_layout,
        }
    return facts


def _shape_source(args):
    """ShapeDescriptor from --shape and friends."""
    from acl_bridge import PaddingSize, auto_padding, padded_descriptor
    from ndarray import ShapeDescriptor

    shape = _ints(args.shape, "--shape")
    dtype = args.dtype or "float32"
    explicit = [o for o in ("strides", "offset", "alloc_size") if getattr(args, o) is not None]
    padded = [o for o in ("paddings", "padding_offsets") if getattr(args, o) is not None]
    acl = [o for o in ("acl_auto_padding", "acl_padding") if getattr(args, o)]
    given = [g for g in (explicit, padded, acl) if g]
    if len(given) > 1 or len(acl) > 1:
        names = ", ".join("--" + o.replace("_", "-") for g in given for o in g)
        raise UsageError(f"{names}: give strides/offset/alloc-size, paddings/padding-offsets or one ACL padding, not several")
    if args.acl_auto_padding:
        return auto_padding(shape, dtype), f"ACL auto padding of {_join(shape)}"
    if args.acl_padding:
        top, right, bottom, left = _padding4(args.acl_padding)
        return padded_descriptor(shape, dtype, PaddingSize(top, right, bottom, left)), None
    d = ShapeDescriptor.create(
        shape, dtype, args.order,
        strides=None if args.strides is None else _ints(args.strides, "--strides"),
        offset=0 if args.offset is None else _int(args.offset, "--offset"),
        alloc_size=None if args.alloc_size is None else _int(args.alloc_size, "--alloc-size"),
        paddings=None if args.paddings is None else _ints(args.paddings, "--paddings"),
        padding_offsets=None if args.padding_offsets is None else _ints(args.padding_offsets, "--padding-offsets"),
    )
    return d, None


def _padding4(text: str) -> Tuple[int, int, int, int]:
    values = _ints(text, "--acl-padding")
    if len(values) != 4 or min(values) < 0:
        raise UsageError(f"--acl-padding is {text!r}, expected four integers >= 0: TOP,RIGHT,BOTTOM,LEFT")
    return values  # type: ignore[return-value]


def _describe(args) -> Tuple[Dict[str, Any], Callable[[], Any]]:
    """(facts, a function that builds the memory map) for the layout the arguments give.

    The facts (cells included) cost nothing per element: the map, which does, is built only
    when it is printed or drawn (cmd_describe)."""
    from . import memory_map

    sources = [name for name, v in (("--shape", args.shape), ("--xla", args.xla), ("--directml", args.directml)) if v is not None]
    if len(sources) != 1:
        raise UsageError(
            f"describe needs exactly one of --shape, --xla, --directml, got {', '.join(sources) or 'none'}"
        )
    columns = None if args.columns is None else _int(args.columns, "--columns")
    if columns is not None and columns < 1:
        raise UsageError(f"--columns is {columns}, expected >= 1")
    index = None if args.index is None else _ints(args.index, "--index")
    if args.xla is not None:
        for opt in ("shape", "strides", "sizes", "paddings", "padding_offsets", "offset", "alloc_size", "dtype", "total_size"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt.replace('_', '-')} does not go with --xla: the XLA text says everything")
        return _describe_xla(args, columns, index)
    if args.directml is not None:
        for opt in ("paddings", "padding_offsets", "offset", "alloc_size", "dtype"):
            if getattr(args, opt) is not None:
                raise UsageError(f"--{opt.replace('_', '-')} does not go with --directml (use --sizes, --strides, --total-size)")
        if args.sizes is None:
            raise UsageError("--directml needs --sizes, e.g. --directml FLOAT32 --sizes 1,1,3,5")
        from ndarray.formats.directml import BufferTensorDesc

        desc = BufferTensorDesc(
            args.directml, _ints(args.sizes, "--sizes"),
            None if args.strides is None else _ints(args.strides, "--strides"),
            None if args.total_size is None else _int(args.total_size, "--total-size"),
        )
        d = desc.to_shape_descriptor()
        facts = {"source": f"DirectML {desc!r}", "directml": {
            "data_type": desc.data_type, "sizes": list(desc.sizes),
            "strides": None if desc.strides is None else list(desc.strides),
            "effective_strides": list(desc.effective_strides),
            "total_tensor_size_in_bytes": desc.total_tensor_size_in_bytes,
            "minimum_size_in_bytes": desc.minimum_size_in_bytes,
            "is_packed": desc.is_packed, "is_broadcast": desc.is_broadcast}}
        facts.update(_descriptor_facts(d, args.data_layout))
        if index is not None:
            facts["element_offset"] = {"index": list(index), "offset": desc.element_offset(index)}
        facts["cells"] = _descriptor_cells(d, columns)
        return facts, lambda: memory_map.descriptor_map(d, columns, title=repr(desc))
    if args.sizes is not None or args.total_size is not None:
        raise UsageError("--sizes and --total-size go with --directml")
    d, title = _shape_source(args)
    facts = {"source": title or "shape"}
    facts.update(_descriptor_facts(d, args.data_layout))
    if index is not None:
        facts["element_offset"] = {"index": list(index), "offset": d.element_offset(index)}
    facts["cells"] = _descriptor_cells(d, columns)
    return facts, lambda: memory_map.descriptor_map(d, columns, title=_short_title(d, title, facts["acl"]))


def _cells(total: int, elements: Optional[int], shared: int, columns: int, element0: int) -> Dict[str, Any]:
    return {"total": total, "elements": elements, "padding": None if elements is None else total - elements,
            "shared": shared, "columns": columns, "element0_offset": element0}


def _descriptor_cells(d, columns: Optional[int]) -> Dict[str, Any]:
    """The map's cell counts without building it: a layout whose elements never share an
    address holds ``size`` element cells; only an overlapping one is counted cell by cell
    (up to memory_map.MAX_CELLS elements; above, the counts are left out as None)."""
    from . import memory_map

    auto, _ = memory_map.descriptor_columns(d)
    element0 = d.offset if d.size else -1
    if not d.overlaps:
        return _cells(d.alloc_size, d.size, 0, columns or auto, element0)
    if d.size > memory_map.MAX_CELLS:
        return _cells(d.alloc_size, None, None, columns or auto, element0)
    m = memory_map.descriptor_map(d, columns)
    return _cells(m.alloc_size, m.element_cells, m.shared_cells, m.columns, m.element0)


def _short_title(d, title: Optional[str], acl: Dict[str, Any]) -> str:
    """Picture title: the layout in elements, then its ACL description in bytes."""
    from ndarray.dtypes import dtype_text

    text = f"{dtype_text(d.dtype)}[{_join(d.shape)}] strides ({_join(d.strides)}) offset {d.offset} alloc {d.alloc_size}"
    if d.has_padded_buffer:
        text += f" paddings ({_join(d.paddings)}) at ({_join(d.padding_offsets)})"
    if title:
        text = f"{title}: {text}"
    if "error" not in acl:
        p = acl["padding"]
        text += (
            f"\nACL {acl['data_type']} ({_join(acl['tensor_shape'])}) strides ({_join(acl['strides_in_bytes'])}) "
            f"offset {acl['offset_first_element_in_bytes']} total {acl['total_size_in_bytes']} bytes, "
            f"padding top {p['top']} right {p['right']} bottom {p['bottom']} left {p['left']}"
        )
    return text


def _describe_xla(args, columns, index):
    from ndarray import LayoutError
    from ndarray.errors import UnsupportedOptionError
    from ndarray.formats import xla

    from . import memory_map

    shape = xla.parse(args.xla)
    if isinstance(shape, xla.XlaTuple):
        raise UnsupportedOptionError(
            f"--xla is {args.xla!r}, a tuple of {len(shape.elements)} shapes; describe takes one array shape, "
            f"e.g. --xla {repr(shape.elements[0])!r}")
    facts: Dict[str, Any] = {
        "source": f"XLA {shape!r}",
        "xla": {
            "notation": repr(shape),
            "element_type": shape.element_type,
            "dimensions": list(shape.dimensions),
            "minor_to_major": list(shape.minor_to_major),
            "tiles": [list(t) for t in shape.tiles],
            "padded_dimensions": list(shape.padded_dimensions),
            "tiled_shape": list(shape.tiled_shape),
            "buffer_size": shape.buffer_size,
            "buffer_size_in_bytes": shape.buffer_size_in_bytes,
        },
    }
    try:
        view = shape.to_tiled_view()
        facts["xla"]["tiled_view"] = {"shape": list(view.shape), "strides": list(view.strides)}
    except LayoutError as e:
        facts["xla"]["tiled_view"] = {"error": f"{type(e).__name__}: {e}"}
    if index is not None:
        facts["element_offset"] = {"index": list(index), "offset": shape.linear_index(index)}
    try:
        d = shape.to_shape_descriptor()
    except LayoutError as e:
        facts["shape_descriptor"] = {"error": f"{type(e).__name__}: {e}"}
    else:
        facts["shape_descriptor"] = _descriptor_facts(d, args.data_layout)
    # an XLA layout gives every element its own cell
    size = math.prod(shape.dimensions)
    auto, _ = memory_map.xla_columns(shape)
    element0 = shape.linear_index((0,) * len(shape.dimensions)) if size else -1
    facts["cells"] = _cells(shape.buffer_size, size, 0, columns or auto, element0)
    return facts, lambda: memory_map.xla_map(shape, columns)


def _format_facts(facts: Dict[str, Any]) -> List[str]:
    lines: List[str] = []

    def row(key, value, indent=""):
        if isinstance(value, bool):
            value = "yes" if value else "no"
        elif isinstance(value, (list, tuple)):
            value = _join(value) if all(isinstance(v, int) for v in value) else str(value)
        lines.append(f"{indent}{key:<31} {value}")

    def descriptor_block(f, indent=""):
        row("layout", f["layout"], indent)
        row("dtype", f"{f['dtype']} ({f['itemsize']} bytes)", indent)
        row("shape", f["shape"], indent)
        row("order", f["order"], indent)
        row("strides", f"{_join(f['strides'])} elements = {_join(f['strides_in_bytes'])} bytes", indent)
        row("offset", f"{f['offset']} elements = {f['offset_in_bytes']} bytes", indent)
        row("alloc_size", f"{f['alloc_size']} elements = {f['alloc_size_in_bytes']} bytes", indent)
        row("padded_shape", f["padded_shape"], indent)
        row("paddings", f["paddings"], indent)
        row("padding_offsets", f["padding_offsets"], indent)
        row("ews", f["ews"], indent)
        row("contiguous", f"c: {'yes' if f['contiguous_c'] else 'no'}, f: {'yes' if f['contiguous_f'] else 'no'}", indent)
        row("has_padded_buffer", f["has_padded_buffer"], indent)
        row("overlaps", f["overlaps"], indent)
        acl = f["acl"]
        if "error" in acl:
            lines.append(f"{indent}ACL mapping: not representable: {acl['error']}")
        else:
            lines.append(f"{indent}ACL mapping (acl_bridge.tensor_info; ACL order, x first):")
            sub = indent + "  "
            row("tensor_shape", acl["tensor_shape"], sub)
            row("strides_in_bytes", acl["strides_in_bytes"], sub)
            row("offset_first_element_in_bytes", acl["offset_first_element_in_bytes"], sub)
            row("total_size_in_bytes", acl["total_size_in_bytes"], sub)
            p = acl["padding"]
            row("padding", f"top={p['top']} right={p['right']} bottom={p['bottom']} left={p['left']}", sub)
            row("data_type", acl["data_type"], sub)
            row("data_layout", acl["data_layout"], sub)

    row("source", facts["source"])
    if "directml" in facts:
        dm = facts["directml"]
        row("directml data_type", dm["data_type"])
        row("directml sizes", dm["sizes"])
        row("directml strides", "implicit (packed)" if dm["strides"] is None else _join(dm["strides"]))
        row("directml total size", f"{dm['total_tensor_size_in_bytes']} bytes (minimum {dm['minimum_size_in_bytes']})")
    if "xla" in facts:
        x = facts["xla"]
        row("xla", x["notation"])
        row("element_type", x["element_type"])
        row("dimensions", x["dimensions"])
        row("minor_to_major", x["minor_to_major"])
        row("tiles", "".join("(" + ",".join("*" if t < 0 else str(t) for t in tile) + ")" for tile in x["tiles"]) or "none")
        if x["padded_dimensions"]:
            row("padded_dimensions", x["padded_dimensions"])
        row("tiled_shape", x["tiled_shape"])
        row("buffer_size", f"{x['buffer_size']} elements = {x['buffer_size_in_bytes']} bytes")
        tv = x["tiled_view"]
        row("tiled view", tv["error"] if "error" in tv else f"shape {_join(tv['shape'])} strides {_join(tv['strides'])} (elements)")
    if "element_offset" in facts:
        e = facts["element_offset"]
        row(f"element ({_join(e['index'])})", f"at offset {e['offset']}")
    if "xla" in facts:
        sd = facts["shape_descriptor"]
        if "error" in sd:
            lines.append(f"ShapeDescriptor: not representable: {sd['error']}")
        else:
            lines.append("ShapeDescriptor:")
            descriptor_block(sd, "  ")
    else:
        descriptor_block(facts)
    c = facts["cells"]
    if c["elements"] is None:
        from .memory_map import MAX_CELLS

        row("cells", f"{c['total']} (elements may share cells; not counted above {MAX_CELLS} elements)")
    else:
        row("cells", f"{c['total']} = {c['elements']} holding elements + {c['padding']} padding"
            + (f" ({c['shared']} shared)" if c["shared"] else ""))
    return lines


def cmd_describe(args, out, err) -> int:
    from . import memory_map
    from . import pictures as picture

    cell = None if args.cell is None else _int(args.cell, "--cell")
    if cell is not None and not 3 <= cell <= 64:
        raise UsageError(f"--cell is {cell}, expected 3..64 pixels")
    if args.out is not None:  # the file named, exactly: '', '-', a folder or another suffix is refused
        from .models.format.files import check_out

        check_out(args.out, (".png", ".svg"))
    facts, build_map = _describe(args)
    total = facts["cells"]["total"]
    if args.out:
        picture.check_drawable(total, facts["source"])
    text_map = not args.json and not args.no_map
    m = build_map() if args.out or (text_map and not memory_map.too_many_cells(total)) else None
    written = None
    if args.out:  # draw first: a file that cannot be written fails before anything is printed
        if total > 100_000:
            print(f"drawing {total} cells to {args.out}...", file=err)
        written = picture.write_picture(args.out, m, cell=cell)
    if args.json:
        print(json.dumps(facts, indent=2), file=out)
    else:
        for line in _format_facts(facts):
            print(line, file=out)
        if text_map:
            print(f"memory map ({facts['cells']['columns']} cells per row; '.' padding, [ ] element 0, '*' shared):",
                  file=out)
            print(memory_map.too_many_cells(total) or memory_map.text_map(m, coordinates=args.coords), file=out)
    if written and not args.json:
        print(f"wrote {written.upper()} {args.out}", file=out)
    return EXIT_OK


# ---------------------------------------------------------------------------- demo
def cmd_demo(args, out, err) -> int:
    if importlib.util.find_spec("acl_bridge.demo") is None:
        try:
            from acl_bridge import native_available

            ok, reason = native_available()
        except Exception as e:  # noqa: BLE001
            ok, reason = False, str(e)
        why = "" if ok else f" ({reason})"
        print(f"{PROG} demo: the demo needs the native ACL layer and acl_bridge.demo, which is not installed{why}", file=err)
        return EXIT_RUNTIME
    return int(importlib.import_module("acl_bridge.demo").execute(args, out) or 0)


# ---------------------------------------------------------------------------- main
COMMANDS = {"info": cmd_info, "describe": cmd_describe, "demo": cmd_demo}


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the command line; returns the exit code and never raises (``--help`` and
    ``--version`` return 0 after printing)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    # --traceback may stand anywhere.
    show_traceback = "--traceback" in argv
    argv = _glue_negative_values([a for a in argv if a != "--traceback"])
    out, err = sys.stdout, sys.stderr
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as e:  # --help, --version: printed, done
            out.flush()
            return int(e.code or 0)
        if args.command is None:
            build_parser().print_help(out)
            return EXIT_USAGE
        code = (COMMANDS.get(args.command) or args.handler)(args, out, err)
        out.flush()  # a reader that went away is noticed here, inside the handler below
        return code
    except BrokenPipeError:
        # `acl-ndarray describe ... | head`: the reader has what it wanted. Python's docs (signal,
        # "Note on SIGPIPE"): point stdout at devnull so the interpreter's final flush is quiet.
        _silence_stdout()
        return EXIT_OK
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=err)
        return 130
    except Exception as e:  # noqa: BLE001 - every error: one line, its exit code
        if show_traceback:
            traceback.print_exception(type(e), e, e.__traceback__, file=err)
        print(f"{PROG}: error: {error_line(e)}", file=err)
        return exit_code_for(e)


def exit_code_for(e: BaseException) -> int:
    """THE mapping from exceptions to exit codes.

    2 (bad input): usage errors and the library's input errors: every ``AclNdarrayError``
    that is also a ValueError, TypeError or IndexError (LayoutError and its
    InvalidLayoutError / NotRepresentableError, ArgumentTypeError, UnsupportedOptionError,
    IndexOutOfRangeError, ReadOnlyError, the models' ImageError, ModelFormatError,
    UnsupportedModelError, InputFileError). 1 (failure): the rest: ``AclError`` (the native
    layer), ``FetchError``, OSError (a file that cannot be read or written), MemoryError, and
    anything unexpected."""
    if isinstance(e, UsageError):
        return EXIT_USAGE
    if isinstance(e, AclNdarrayError) and isinstance(e, (ValueError, TypeError, IndexError)):
        return EXIT_USAGE
    return EXIT_RUNTIME


def error_line(e: BaseException) -> str:
    """The one line printed for ``e``: the library's class name and message; for an
    OSError, the file and the system's reason; an unexpected exception says so."""
    message = " ".join(str(e).split())  # one line
    if isinstance(e, UsageError):
        return message
    if isinstance(e, AclNdarrayError):
        return f"{type(e).__name__}: {message}"
    if isinstance(e, OSError) and e.strerror:
        where = f"{e.filename}: " if e.filename is not None else ""
        return f"{where}{e.strerror}"
    if isinstance(e, MemoryError):
        return f"out of memory{': ' + message if message else ''}"
    return f"unexpected {type(e).__name__}: {message} (a bug: please report it with --traceback's output)"


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured in tests)
        pass


def _glue_negative_values(argv: List[str]) -> List[str]:
    """['--strides', '-3,1'] -> ['--strides=-3,1']: argparse would take '-3,1' for an option."""
    out: List[str] = []
    for a in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and re.fullmatch(r"-\d[\d,\s]*", a):
            out[-1] = f"{out[-1]}={a}"
        else:
            out.append(a)
    return out
