"""Whether this process runs under QEMU user-mode emulation (read from /proc/cpuinfo): the demo
reports it, and the TFLite interpreter's users avoid ai-edge-litert 2.x builds that crash there."""

from __future__ import annotations

import os
import platform
from typing import Optional


def emulated() -> Optional[str]:
    """A description of the emulation when this arm64 process runs under QEMU user mode
    (detected from /proc/cpuinfo, which QEMU passes through from the x86 host), else None."""
    if platform.machine() not in ("aarch64", "arm64"):
        return None
    try:
        with open("/proc/cpuinfo") as fh:
            cpuinfo = fh.read()
    except OSError:
        cpuinfo = ""
    if "GenuineIntel" in cpuinfo or "AuthenticAMD" in cpuinfo or "x86" in cpuinfo:
        cpu = os.environ.get("QEMU_CPU") or "max"
        return f"QEMU user-mode emulation (cpu {cpu}) on an x86_64 host"
    return None
