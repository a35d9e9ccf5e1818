"""The CPU matrix's selection stays honest: docker/emulate.sh runs the tests marked `cpu` on each
matrix CPU (cortex-a53, max), and the `cpu` rows are those of tests/function_cases.py
CPU_KERNEL_KINDS, the kinds whose ACL function picks its kernels by CPU (arm_gemm and arm_conv's
depthwise kernels: dot product, i8mm, bf16, Cortex-A53/A55 variants). Here: that set and the ACL
functions the native rooms build agree, every row of those kinds and no other carries the mark,
and the matrix job selects the mark in every file that uses it."""

import re
from pathlib import Path

from function_cases import CASES, CPU_KERNEL_KINDS, INT8_CASES, params

ROOT = Path(__file__).resolve().parent.parent

# ACL's NEON functions built on arm_gemm / arm_conv (kernels chosen by CPU features and model)
# and the function kind of this library that configures each
CPU_KERNEL_FUNCTIONS = {
    "NEConvolutionLayer": "Convolution", "NEDeconvolutionLayer": "Deconvolution",
    "NEDepthwiseConvolutionLayer": "DepthwiseConvolution", "NEFullyConnectedLayer": "FullyConnected",
    "NEGEMM": "Gemm", "NELSTMLayer": "Lstm", "NEMatMul": "MatMul", "NEQLSTMLayer": "QLstm",
}
# names of ACL NEON functions that run on arm_gemm / arm_conv (NEConv3D is a direct NEON kernel)
GEMM_BASED = re.compile(r"GEMM|FullyConnected|Convolution|MatMul|LSTM|RNN|Winograd")


def _native_functions() -> set:
    """The ACL NEON functions the native rooms include."""
    found = set()
    for path in sorted((ROOT / "native").glob("*.cpp")):
        found |= set(re.findall(r'#include "arm_compute/runtime/NEON/functions/(NE\w+)\.h"', path.read_text()))
    return found


def _matrix_selection() -> str:
    """The CPU_SUBSET=( ... ) array of docker/emulate.sh."""
    text = (ROOT / "docker" / "emulate.sh").read_text()
    match = re.search(r"^CPU_SUBSET=\((.*?)\)$", text, re.M | re.S)
    assert match, "docker/emulate.sh has no CPU_SUBSET=(...) array"
    return match.group(1)


def test_every_gemm_based_acl_function_of_the_native_rooms_is_a_cpu_kernel_kind():
    gemm_based = {f for f in _native_functions() if GEMM_BASED.search(f)}
    unclassified = gemm_based - set(CPU_KERNEL_FUNCTIONS)
    assert not unclassified, (f"native rooms build {sorted(unclassified)} (arm_gemm / arm_conv kernels, picked "
                              "by CPU): add it to CPU_KERNEL_FUNCTIONS here and its kind to CPU_KERNEL_KINDS")
    assert set(CPU_KERNEL_FUNCTIONS) <= _native_functions()
    assert set(CPU_KERNEL_FUNCTIONS.values()) == CPU_KERNEL_KINDS


def test_every_cpu_kernel_kind_has_rows_and_only_their_rows_are_marked():
    kinds = {c.kind for c in CASES} | {c.kind for c in INT8_CASES}
    assert CPU_KERNEL_KINDS <= kinds, sorted(CPU_KERNEL_KINDS - kinds)
    for param in params("neon"):
        case = param.values[0]
        marked = any(m.name == "cpu" for m in param.marks)
        assert marked == (case.kind in CPU_KERNEL_KINDS), (param.id, case.kind)


def test_the_matrix_job_runs_the_cpu_mark_in_every_file_that_uses_it():
    selection = _matrix_selection()
    assert re.search(r'-m "acl and cpu"', selection), selection
    listed = set(re.findall(r"(tests/\S+\.py)(?=\s|$)", selection))
    for name in listed:
        assert (ROOT / name).is_file(), name
    users = {str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
             if re.search(r"mark\.cpu\b|cpu_marks\(", p.read_text())}
    assert users, "no test file uses the cpu mark"
    missing = users - listed - {"tests/test_cpu_matrix.py"}
    assert not missing, f"marked `cpu` but not in the CPU matrix's files (docker/emulate.sh CPU_SUBSET): {sorted(missing)}"


def test_the_cpu_marker_is_registered():
    assert re.search(r'^\s*"cpu: ', (ROOT / "pyproject.toml").read_text(), re.M)
