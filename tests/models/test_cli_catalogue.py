"""The model commands and API against every class of input issue 39 tried (host: numpy
backend, TFLite's interpreter as the oracle of every result; nothing native runs).

Each row is one class of input and what it must give: a command line with its exit code
and a regex on its one error line (docs/cli.md's rule: 0 done, 1 a file that cannot be read
or written or a missing package, 2 bad input), or an API call with its exception class; an
input that must work also has an oracle (``check``) on what it wrote or printed. A row's
outcome is classified as the issue counted them:

* ``internal error``: "unexpected ... (a bug)", or an exception that is not the library's;
* ``silently accepted``: exit 0 / no exception where a refusal was due;
* ``misleading``: refused, but with another exit code or class, another reason, more than
  one line, or a warning printed beside it;
* ``wrong``: done, but the oracle disagrees (or a good input refused);
* ``ok``.

``python tests/models/test_cli_catalogue.py`` prints the tally (docs/robustness.md);
``python docs/robustness_counts.py`` counts the rows.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import sys
import warnings
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np
import pytest

if __package__ in (None, ""):  # python tests/models/test_cli_catalogue.py
    sys.path[:0] = [str(Path(__file__).resolve().parents[2])]

from ndarray import ArgumentTypeError, InvalidLayoutError  # noqa: E402
from ndarray.errors import AclNdarrayError  # noqa: E402

if __package__:
    from .graph_tflite import chain
else:  # run as a script (the counts): the tests' folder on the path, as pytest puts it
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from models.graph_tflite import chain  # type: ignore[no-redef]

FRONT, LANDMARK, KWS, CLASSIFIER = ("face_detection_front", "face_landmark", "keyword_spotting_mobilenetv2",
                                    "image_classification")
INPUT = (1, 128, 128, 3)  # face_detection_front's input, float32


def model(name: str) -> str:
    from acl_bridge.models.apps import fetch

    return str(fetch.model_path(name))


def photo() -> str:
    from acl_bridge.models.apps import fetch

    return str(fetch.photo_path())


# ---------------------------------------------------------------------------- oracles
def tflite_outputs(name: str, x: np.ndarray) -> Dict[str, np.ndarray]:
    from acl_bridge.models.oracles.tflite_oracle import runner

    run, _ = runner(model(name))
    return run(np.ascontiguousarray(x))


def same_as_tflite(name: str, x: np.ndarray, got: Dict[str, np.ndarray]) -> None:
    want = tflite_outputs(name, x)
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-3, equal_nan=True, err_msg=k)


def written(path: Path) -> Dict[str, np.ndarray]:
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def faces(out: str) -> List[Dict[str, Any]]:
    return json.loads(out)


def one_face_like_the_photo(tmp: Path, out: str) -> None:
    """One face, its box within 6 pixels of the 8-bit RGB photograph's."""
    got = faces(out)
    want = faces(_run_cli(["detect", photo(), "--json", "--backend", "numpy"])[1])
    assert len(got) == 1 == len(want), got
    assert np.max(np.abs(np.subtract(got[0]["box"], want[0]["box"]))) <= 6, (got, want)


def nothing_written(*names: str) -> Callable[[Path, str], None]:
    def check(tmp: Path, out: str) -> None:
        assert not [n for n in names if (tmp / n).exists()], [n for n in names if (tmp / n).exists()]
    return check


# ---------------------------------------------------------------------------- inputs
def rng_input(tmp: Path) -> np.ndarray:
    return np.random.default_rng(39).uniform(-1, 1, INPUT).astype(np.float32)


def _nan_inf(tmp: Path) -> np.ndarray:
    """The random input with NaN and -Inf cells."""
    x = rng_input(tmp)
    return np.where(x > 0.8, np.nan, np.where(x < -0.9, -np.inf, x)).astype(np.float32)


def npy(tmp: Path, name: str, x: Any) -> str:
    np.save(tmp / name, x, allow_pickle=True)
    return str(tmp / name)


def npy_bytes(shape, dtype="<f4", data: bytes = b"", fortran: bool = False) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": dtype, "fortran_order": fortran, "shape": tuple(shape)})
    return buf.getvalue() + data


def write(tmp: Path, name: str, content: bytes) -> str:
    (tmp / name).write_bytes(content)
    return str(tmp / name)


def picture(tmp: Path, name: str, convert: Callable[[Any], Any], **save) -> str:
    from PIL import Image

    with Image.open(photo()) as im:
        convert(im.convert("RGB")).save(tmp / name, **save)
    return str(tmp / name)


def grey16(im):
    from PIL import Image

    grey = np.asarray(im.convert("L"), np.uint16) * 257
    return Image.fromarray(grey)  # Pillow: mode I;16


def alpha(value: int):
    def convert(im):
        rgba = im.convert("RGBA")
        rgba.putalpha(value)
        return rgba
    return convert


def rotated_with_exif(im):
    from PIL import Image

    return im.transpose(Image.Transpose.ROTATE_90)  # saved with EXIF orientation 6: viewers turn it back


def exif_orientation(value: int) -> Dict[str, Any]:
    from PIL import Image

    exif = Image.Exif()
    exif[0x0112] = value
    return {"exif": exif}


def run_out(tmp: Path, out: str, *extra: str) -> List[str]:
    return ["run-tflite", model(FRONT), npy(tmp, "x.npy", rng_input(tmp)), "--out", out, "--backend", "numpy",
            *extra]


def run_input(path_of: Callable[[Path], str], *extra: str) -> Callable[[Path], List[str]]:
    return lambda tmp: ["run-tflite", model(FRONT), path_of(tmp), "--out", str(tmp / "o.npz"), "--backend",
                        "numpy", *extra]


def wrote_what_tflite_gives(x_of: Callable[[Path], np.ndarray], out: str = "o.npz"):
    def check(tmp: Path, stdout: str) -> None:
        assert stdout.startswith(f"wrote {tmp / out}: "), stdout
        same_as_tflite(FRONT, x_of(tmp), written(tmp / out))
    return check


def plan_of(name: str):
    from acl_bridge.models.format.tflite_reader import fold_constant_dequantize, read_model
    from acl_bridge.models.planning.tflite_plan import plan_model

    return plan_model(fold_constant_dequantize(read_model(model(name))), fallback=True)


def run_plan_on(name: str, x: Any):
    from acl_bridge.models.planning.numpy_executor import run_plan

    return lambda: run_plan(plan_of(name), x)


def fifo(tmp: Path) -> str:
    path = tmp / "model.fifo"
    os.mkfifo(path)
    return str(path)


def interpreter_details(tmp: Path, out: str) -> None:
    """inspect --json: inputs and outputs as TFLite's interpreter reads the same file."""
    from acl_bridge.models.oracles.tflite_oracle import interpreter

    it, _ = interpreter(model(CLASSIFIER), reference=True)  # no delegate: the file's own operators
    facts = json.loads(out)
    for mine, theirs in ((facts["inputs"], it.get_input_details()), (facts["outputs"], it.get_output_details())):
        assert [t["name"] for t in mine] == [d["name"] for d in theirs]
        assert [t["shape"] for t in mine] == [d["shape"].tolist() for d in theirs]
        assert [t["dtype"] for t in mine] == [np.dtype(d["dtype"]).name for d in theirs]
        assert [(t["quantization"]["scale"][0], t["quantization"]["zero_point"][0]) for t in mine] == \
            [d["quantization"] for d in theirs]
    assert [o["opcode"] for o in facts["operators"]] == [d["op_name"] for d in it._get_ops_details()]
    assert facts["summary"]["operators"] == len(facts["operators"])
    assert facts["acl"]["available"] is False and "CPU fallback" not in [o["runs_on"] for o in facts["operators"]]


def no_face(tmp: Path, out: str) -> None:
    assert faces(out) == []


# ---------------------------------------------------------------------------- the rows
@dataclass(frozen=True)
class Row:
    """One class of input. ``make(tmp)``: the command line (a list) or an API call (a
    callable); ``code``: the exit code due (CLI) or ``error``: the exception class due (API;
    None: no exception); ``match``: a regex on the error line (or the exception's message);
    ``check(tmp, stdout)``: the oracle on what was done (refusals: that nothing was written);
    ``patch``: modules hidden from the call (a missing optional package)."""

    name: str
    theme: str
    make: Callable[[Path], Union[List[str], Callable[[], Any]]]
    code: Optional[int] = None
    match: str = ""
    error: Optional[type] = None
    check: Optional[Callable[[Path, str], None]] = None
    patch: Tuple[str, ...] = field(default=())


API, MODELS, INPUTS, OUT, PICTURES, KINDS, OPTIONS = (
    "model inputs (API)", "model files", "input files", "--out", "pictures", "models of another kind",
    "options, packages, inspect")

ROWS: List[Row] = [
    # the values given to run_plan (and to TfliteRunner.run: the same graph_inputs)
    Row("float-for-int8-input", API, lambda t: run_plan_on(CLASSIFIER, np.full((1, 32, 32, 3), 0.7, np.float32)),
        error=ArgumentTypeError, match=r"^input has dtype float32, the model's input is int8\[1, 32, 32, 3\]: nothing is cast"),
    Row("wider-int-for-int8-input", API, lambda t: run_plan_on(CLASSIFIER, np.full((1, 32, 32, 3), 300, np.int64)),
        error=ArgumentTypeError, match=r"^input has dtype int64, the model's input is int8"),
    Row("float64-for-float32-input", API, lambda t: run_plan_on(FRONT, np.zeros(INPUT)),
        error=ArgumentTypeError, match=r"^input has dtype float64, the model's input is float32\[1, 128, 128, 3\]"),
    Row("nested-list-input", API, lambda t: run_plan_on(FRONT, np.zeros(INPUT).tolist()),
        error=ArgumentTypeError, match=r"^input has dtype float64, the model's input is float32"),
    Row("scalar-broadcast-input", API, lambda t: run_plan_on(FRONT, np.float32(0.5)),
        error=InvalidLayoutError, match=r"^input has shape \(\), the model expects \(1, 128, 128, 3\): nothing is broadcast"),
    Row("size-1-broadcast-input", API, lambda t: run_plan_on(FRONT, np.zeros((1, 1, 1, 3), np.float32)),
        error=InvalidLayoutError, match=r"^input has shape \(1, 1, 1, 3\), the model expects \(1, 128, 128, 3\)"),
    Row("unknown-input-name", API, lambda t: run_plan_on(FRONT, {"image": np.zeros(INPUT, np.float32)}),
        error=InvalidLayoutError, match=r"^inputs are named \['image'\], the model's are \['input'\]"),
    # the model file
    Row("model-not-a-path", MODELS, lambda t: _read_model(123), error=ArgumentTypeError,
        match=r"^model is int 123, expected a path \(str or os.PathLike\)"),
    Row("model-missing", MODELS, lambda t: ["run-tflite", str(t / "none.tflite"), npy(t, "x.npy", rng_input(t)),
                                            "--out", str(t / "o.npz"), "--backend", "numpy"],
        code=1, match=r"none\.tflite: No such file or directory$", check=nothing_written("o.npz")),
    Row("model-is-a-folder", MODELS, lambda t: ["inspect", str(t)], code=1,
        match=r": is a folder, expected a regular file \(model\)$"),
    Row("model-is-a-device", MODELS, lambda t: ["inspect", "/dev/zero"], code=1,
        match=r"^/dev/zero: is a character device, expected a regular file \(model\)$"),
    Row("model-is-a-fifo", MODELS, lambda t: ["inspect", fifo(t)], code=1, match=r"model\.fifo: is a FIFO"),
    Row("model-read-fails", MODELS, lambda t: ["inspect", "/proc/self/mem"], code=1,
        match=r"^/proc/self/mem: Input/output error$"),
    Row("model-not-tflite", MODELS, lambda t: ["inspect", write(t, "m.tflite", b"not a model at all" * 4)], code=2,
        match=r"^ModelFormatError: file identifier is b'a mo', expected b'TFL3' \(not a TFLite model\)$"),
    Row("model-with-several-unsupported-operators", MODELS,
        lambda t: ["run-tflite", write(t, "m.tflite", chain(["RELU", "COS", "RELU", "CEIL"], (1, 4, 4, 3))),
                   npy(t, "x.npy", np.zeros((1, 4, 4, 3), np.float32)), "--out", str(t / "o.npz"),
                   "--backend", "numpy", "--no-fallback"], code=2,
        match=r"^UnsupportedModelError: 2 of the model's 4 operators are not supported: operator #1 COS: .*; "
              r"operator #3 CEIL: ", check=nothing_written("o.npz")),
    Row("tflite-package-missing", MODELS, lambda t: ["inspect", model(FRONT)], code=1, patch=("tflite",),
        match=r'^MissingPackageError: reading \.tflite files needs the .tflite. package \(pip install "acl-ndarray\[models\]"\)'),
    # run-tflite's INPUT
    Row("input-missing", INPUTS, run_input(lambda t: str(t / "none.npy")), code=1,
        match=r"none\.npy: No such file or directory$", check=nothing_written("o.npz")),
    Row("input-is-a-folder", INPUTS, run_input(lambda t: str(t)), code=1,
        match=r": is a folder, expected a regular file \(input file\)$"),
    Row("input-not-numpy", INPUTS, run_input(lambda t: write(t, "x.npy", b"hello, not numpy")), code=2,
        match=r"x\.npy is neither a numpy \.npy file nor a \.npz archive \(it starts with b'hello,'\)"),
    Row("npz-with-two-unnamed-arrays", INPUTS, run_input(lambda t: _npz(t, a=np.zeros(2), b=np.zeros(2))), code=2,
        match=r"x\.npz holds 2 arrays \['a', 'b'\], expected one, or one named 'input' \(the model's input\)$"),
    Row("npz-empty", INPUTS, run_input(lambda t: _npz(t)), code=2,
        match=r"x\.npz holds 0 arrays \[\], expected one, or one named 'input'"),
    Row("npz-damaged", INPUTS, run_input(lambda t: write(t, "x.npz", b"PK\x03\x04" + b"\0" * 40)), code=2,
        match=r"x\.npz is not a readable \.npz archive: "),
    Row("npy-header-claims-a-huge-shape", INPUTS,
        run_input(lambda t: write(t, "x.npy", npy_bytes((1, 100000, 100000, 100), data=b"\0" * 64))), code=2,
        match=r"x\.npy holds float32\[1, 100000, 100000, 100\], the model's input 'input' is float32\[1, 128, 128, 3\]$"),
    Row("npy-truncated", INPUTS, run_input(lambda t: write(t, "x.npy", npy_bytes(INPUT, data=b"\0" * 64))), code=2,
        match=r"x\.npy is truncated: its header says float32\[1, 128, 128, 3\], 196608 bytes of data, the file holds 64$"),
    Row("npz-member-truncated", INPUTS, run_input(lambda t: _npz_raw(t, npy_bytes(INPUT, data=b"\0" * 64))), code=2,
        match=r"x\.npz:input\.npy is truncated: its header says float32\[1, 128, 128, 3\], 196608 bytes"),
    Row("npy-with-bytes-after-the-array", INPUTS,
        run_input(lambda t: write(t, "x.npy", npy_bytes(INPUT, data=b"\0" * (196608 + 8)))), code=2,
        match=r"x\.npy is longer than its array: its header says float32\[1, 128, 128, 3\], 196608 bytes of data, "
              r"the file holds 196616$"),
    Row("npy-of-python-objects", INPUTS, run_input(lambda t: npy(t, "x.npy", np.array([{"a": 1}], dtype=object))),
        code=2, match=r"x\.npy holds Python objects \(object\); inputs are numeric arrays, never unpickled$"),
    Row("npy-of-another-dtype", INPUTS, run_input(lambda t: npy(t, "x.npy", np.zeros(INPUT, np.int8))), code=2,
        match=r"holds int8\[1, 128, 128, 3\], the model's input 'input' is float32\[1, 128, 128, 3\]; nothing is cast"),
    Row("npy-of-a-broadcastable-shape", INPUTS, run_input(lambda t: npy(t, "x.npy", np.zeros((1, 1, 1, 3), np.float32))),
        code=2, match=r"holds float32\[1, 1, 1, 3\], the model's input 'input' is float32\[1, 128, 128, 3\]$"),
    Row("npy-in-fortran-order", INPUTS, run_input(lambda t: npy(t, "x.npy", np.asfortranarray(rng_input(t)))), code=0,
        check=wrote_what_tflite_gives(rng_input)),
    Row("npz-named-input-beside-others", INPUTS, run_input(lambda t: _npz(t, input=rng_input(t), other=np.zeros(3))),
        code=0, check=wrote_what_tflite_gives(rng_input)),
    Row("nan-and-inf-values", INPUTS, run_input(lambda t: npy(t, "x.npy", _nan_inf(t))), code=0,
        check=wrote_what_tflite_gives(_nan_inf)),
    # --out: the file named, exactly
    Row("out-without-the-suffix", OUT, lambda t: run_out(t, str(t / "o")), code=2,
        match=r"--out is '.*/o', expected a file name ending in \.npz \(the file named is the file written",
        check=nothing_written("o", "o.npz")),
    Row("out-is-a-folder", OUT, lambda t: run_out(t, str(t)), code=2, match=r"--out is '.*', a folder; expected"),
    Row("out-is-empty", OUT, lambda t: run_out(t, ""), code=2, match=r"--out is '', expected a file name ending in \.npz"),
    Row("out-is-a-dash", OUT, lambda t: run_out(t, "-"), code=2, match=r"--out is '-', expected a file name ending in "
                                                                          r"\.npz \(the output is written to that file, never to stdout\)"),
    Row("out-in-a-missing-folder", OUT, lambda t: run_out(t, str(t / "none" / "o.npz")), code=1,
        match=r"none: the folder of --out '.*' does not exist$"),
    Row("out-cannot-be-written", OUT, lambda t: run_out(t, _full(t)), code=1,
        match=r"full\.npz: No space left on device$"),
    Row("out-written", OUT, lambda t: run_out(t, str(t / "o.npz")), code=0, check=wrote_what_tflite_gives(rng_input)),
    Row("detect-out-of-an-unknown-format", OUT,
        lambda t: ["detect", photo(), "--backend", "numpy", "--out", str(t / "boxes.npz")], code=2,
        match=r"--out is '.*boxes\.npz', expected a file name ending in \.apng or .*\.png or", check=nothing_written("boxes.npz")),
    Row("detect-out-is-empty", OUT, lambda t: ["detect", photo(), "--backend", "numpy", "--out", ""], code=2,
        match=r"--out is '', expected a file name ending in"),
    Row("describe-out-is-empty", OUT, lambda t: ["describe", "--shape", "2,3", "--out", ""], code=2,
        match=r"--out is '', expected a file name ending in \.png or \.svg"),
    # detect IMAGE
    Row("picture-missing", PICTURES, lambda t: ["detect", str(t / "none.jpg"), "--backend", "numpy"], code=1,
        match=r"none\.jpg: No such file or directory$"),
    Row("picture-is-a-folder", PICTURES, lambda t: ["detect", str(t), "--backend", "numpy"], code=1,
        match=r": is a folder, expected a regular file \(picture\)$"),
    Row("picture-is-a-device", PICTURES, lambda t: ["detect", "/dev/zero", "--backend", "numpy"], code=1,
        match=r"^/dev/zero: is a character device, expected a regular file \(picture\)$"),
    Row("picture-not-a-picture", PICTURES, lambda t: ["detect", write(t, "p.png", b"not a picture"), "--backend", "numpy"],
        code=2, match=r"^ImageError: cannot read image '.*p\.png': cannot identify image file"),
    Row("picture-truncated", PICTURES, lambda t: ["detect", write(t, "p.png", Path(photo()).read_bytes()[:5000]),
                                                  "--backend", "numpy"],
        code=2, match=r"^ImageError: cannot read image '.*p\.png': "),
    Row("picture-16-bit-grey", PICTURES, lambda t: ["detect", picture(t, "p.png", grey16), "--backend", "numpy",
                                                    "--json"], code=0, check=one_face_like_the_photo),
    Row("picture-32-bit-integer-beyond-16-bits", PICTURES,
        lambda t: ["detect", _image(t, "p.tif", np.full((64, 64), -5, np.int32), "I"), "--backend", "numpy"], code=2,
        match=r"is 32-bit integer grey \(Pillow mode I\) with values -5\.\.-5, outside 16 bits"),
    Row("picture-floating-point", PICTURES,
        lambda t: ["detect", _image(t, "p.tif", np.full((64, 64), 0.5, np.float32), "F"), "--backend", "numpy"],
        code=2, match=r"is 32-bit floating point \(Pillow mode F\), which has no defined black and white"),
    Row("picture-palette", PICTURES, lambda t: ["detect", picture(t, "p.png", lambda im: im.quantize(256)), "--backend",
                                                "numpy", "--json"], code=0, check=one_face_like_the_photo),
    Row("picture-palette-with-transparency", PICTURES,
        lambda t: ["detect", picture(t, "p.png", lambda im: im.quantize(256), transparency=0), "--backend", "numpy",
                   "--json"], code=0, check=one_face_like_the_photo),
    Row("picture-cmyk", PICTURES, lambda t: ["detect", picture(t, "p.jpg", lambda im: im.convert("CMYK"), quality=95),
                                             "--backend", "numpy", "--json"], code=0, check=one_face_like_the_photo),
    Row("picture-opaque-alpha", PICTURES, lambda t: ["detect", picture(t, "p.png", alpha(255)), "--backend", "numpy",
                                                     "--json"], code=0, check=one_face_like_the_photo),
    Row("picture-transparent", PICTURES, lambda t: ["detect", picture(t, "p.png", alpha(0)), "--backend", "numpy",
                                                    "--json"], code=0, check=no_face),
    Row("picture-grey-with-alpha", PICTURES,
        lambda t: ["detect", picture(t, "p.png", lambda im: alpha(255)(im).convert("LA")), "--backend", "numpy",
                   "--json"], code=0, check=one_face_like_the_photo),
    Row("picture-exif-rotated", PICTURES,
        lambda t: ["detect", picture(t, "p.jpg", rotated_with_exif, quality=95, **exif_orientation(6)), "--backend",
                   "numpy", "--json"], code=0, check=one_face_like_the_photo),
    # a model of another kind than the command's
    Row("detect-with-a-landmark-model", KINDS,
        lambda t: ["detect", photo(), "--model-file", model(LANDMARK), "--backend", "numpy"], code=2,
        match=r"^UnsupportedModelError: .*face_landmark\.tflite is not a BlazeFace face detector of this input size: "
              r"its outputs are .*; a detector has 2 outputs, \[1, 2304, 16\] \(boxes and keypoints\) and \[1, 2304, 1\]"),
    Row("classify-with-a-detector", KINDS,
        lambda t: ["classify", photo(), "--model-file", model(FRONT), "--backend", "numpy"], code=2,
        match=r"^UnsupportedOptionError: the model is not a classifier of these 2 classes: it has 1 input\(s\) and the "
              r"outputs regressors \[1, 896, 16\], classificators \[1, 896, 1\]"),
    Row("classify-with-a-sound-model", KINDS,
        lambda t: ["classify", photo(), "--model-file", model(KWS), "--backend", "numpy"], code=2,
        match=r"the model is not a classifier of these 2 classes"),
    # options, optional packages, inspect
    Row("demo-threads-negative", OPTIONS, lambda t: ["demo", "--threads", "-5"], code=2,
        match=r"argument --threads: -5 is not a positive integer"),
    Row("pillow-missing", OPTIONS, lambda t: ["detect", photo(), "--backend", "numpy"], code=1, patch=("PIL",),
        match=r"^MissingPackageError: reading and writing images needs Pillow"),
    Row("inspect-a-model", OPTIONS, lambda t: ["inspect", model(CLASSIFIER), "--json"], code=0,
        check=interpreter_details),
]


def _read_model(source):
    from acl_bridge.models.format.tflite_reader import read_model

    return lambda: read_model(source)


def _npz(tmp: Path, **arrays) -> str:
    np.savez(tmp / "x.npz", **arrays)
    return str(tmp / "x.npz")


def _npz_raw(tmp: Path, member: bytes) -> str:
    with zipfile.ZipFile(tmp / "x.npz", "w") as z:
        z.writestr("input.npy", member)
    return str(tmp / "x.npz")


def _full(tmp: Path) -> str:
    os.symlink("/dev/full", tmp / "full.npz")
    return str(tmp / "full.npz")


def _image(tmp: Path, name: str, values: np.ndarray, mode: str) -> str:
    from PIL import Image

    Image.fromarray(values, mode).save(tmp / name)
    return str(tmp / name)


# ---------------------------------------------------------------------------- running a row
def _run_cli(argv: List[str]) -> Tuple[int, str, str]:
    from acl_bridge.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def _hidden(modules: Tuple[str, ...]):
    saved = {m: sys.modules.get(m) for m in modules}
    try:
        for m in modules:
            sys.modules[m] = None  # type: ignore[assignment]  # import m raises ImportError
        yield
    finally:
        for m, v in saved.items():
            if v is None:
                sys.modules.pop(m, None)
            else:
                sys.modules[m] = v


def outcome(row: Row, tmp: Path) -> Tuple[str, str]:
    """(the row's class of outcome, what happened)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call = row.make(tmp)
        with _hidden(row.patch):
            if isinstance(call, list):
                code, out, err = _run_cli(call)
                raised: Optional[BaseException] = None
            else:
                code, out, err = 0, "", ""
                try:
                    call()
                    raised = None
                except Exception as e:  # noqa: BLE001 - classified below
                    raised = e
    said = [str(w.message) for w in caught]
    if isinstance(call, list):
        what = f"exit {code}: {err.strip() or out.strip()[:200]}"
        if "unexpected" in err and "a bug" in err:
            return "internal error", what
        if row.code != 0 and code == 0:
            return "silently accepted", what
        if row.code == 0 and code != 0:
            return "wrong", what
        if row.code != 0:
            line = err.strip()[len("acl-ndarray: error: "):] if err.startswith("acl-ndarray: error: ") else err
            if code != row.code or err.count("\n") != 1 or not re.search(row.match, line.strip()):
                return "misleading", what
    else:
        what = f"{type(raised).__name__}: {raised}" if raised is not None else "no exception"
        if raised is not None and not isinstance(raised, (AclNdarrayError, OSError)):
            return "internal error", what
        if row.error is not None and raised is None:
            return "silently accepted", what
        if row.error is None and raised is not None:
            return "wrong", what
        if row.error is not None and not (type(raised) is row.error and re.search(row.match, str(raised))):
            return "misleading", what
    if said:
        return "misleading", f"{what}; warnings: {said}"
    if row.check is not None:
        try:
            row.check(tmp, out)
        except AssertionError as e:
            return "wrong", f"{what}; {e}"
    return "ok", what


@pytest.fixture(autouse=True)
def _own_caches(tmp_path_factory, monkeypatch):
    for var, name in (("ACL_NDARRAY_MODEL_CACHE", "parsed-models"), ("ACL_NDARRAY_FACTS_CACHE", "acl-facts")):
        monkeypatch.setenv(var, str(tmp_path_factory.mktemp(name)))


@pytest.mark.parametrize("row", ROWS, ids=[r.name for r in ROWS])
def test_catalogue_row(row, tmp_path):
    """Each class of input gives what its row says: ok, never misleading, silently accepted,
    wrong or an internal error (docs/cli.md's rules)."""
    pytest.importorskip("PIL", reason="Pillow is not installed")
    pytest.importorskip("tflite", reason="the 'tflite' parser package is not installed")
    pytest.importorskip("ai_edge_litert.interpreter", reason="TFLite's interpreter (the oracle) is not installed")
    from acl_bridge import native_available
    from acl_bridge.models.apps import fetch

    if native_available()[0]:
        pytest.skip("the rows run the numpy backend and say ACL is absent: the host stage")
    try:
        fetch.model_path(FRONT), fetch.photo_path()
    except fetch.FetchError as e:
        pytest.skip(str(e))
    kind, what = outcome(row, tmp_path)
    assert kind == "ok", f"{row.name}: {kind}: {what}"


def test_every_theme_has_rows_and_names_are_unique():
    assert len({r.name for r in ROWS}) == len(ROWS)
    assert {r.theme for r in ROWS} == {API, MODELS, INPUTS, OUT, PICTURES, KINDS, OPTIONS}


def tally(tmp_root: Path) -> Dict[str, int]:
    """Every row's outcome class, counted (the issue's measure)."""
    counts = {k: 0 for k in ("ok", "misleading", "silently accepted", "wrong", "internal error")}
    for k, row in enumerate(ROWS):
        tmp = tmp_root / f"{k:03d}"
        tmp.mkdir()
        kind, what = outcome(row, tmp)
        counts[kind] += 1
        if kind != "ok":
            print(f"  {row.name}: {kind}: {what}")
    return counts


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        os.environ.setdefault("ACL_NDARRAY_MODEL_CACHE", os.path.join(d, "parsed-models"))
        counts = tally(Path(d))
    print(f"{len(ROWS)} classes of input: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
