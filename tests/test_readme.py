"""The README's code runs as written and prints what it says (the quick start everywhere, the
ACL example on arm64, the shell blocks of the command line and the models); the figures
docs/robustness.md states are the test code's; every relative link of the README and docs/
points at a file that exists."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def quick_start() -> str:
    block = re.search(r"python - <<'EOF'\n(.*?)\nEOF\n", README, re.S)
    assert block, "README lost its quick-start heredoc"
    return block.group(1)


def expected_outputs(source: str):
    """{line number of a print: the text of the `# ...` lines right under it}: the printed
    output the README promises (a trailing comment on the print line itself is a remark)."""
    lines = source.split("\n")
    expected = {}
    for i, line in enumerate(lines):
        if re.match(r"\s*print\(", line):
            comments = []
            for below in lines[i + 1:]:
                m = re.match(r"\s*# ?(.*)$", below)
                if not m:
                    break
                comments.append(m.group(1))
            expected[i + 1] = "\n".join(comments)
    return expected


def run_recording_prints(source: str, name: str):
    """Run ``source``; {line number of each print call: what it printed}."""
    printed = {}

    def recording_print(*args, sep=" ", end="\n", **_):
        line = sys._getframe(1).f_lineno
        printed[line] = printed.get(line, "") + sep.join(map(str, args)) + end

    exec(compile(source, name, "exec"), {"print": recording_print})
    return {k: v.rstrip("\n") for k, v in printed.items()}


def test_quick_start_prints_what_its_comments_say():
    source = quick_start()
    expected = expected_outputs(source)
    assert len(expected) >= 5 and all(expected.values()), f"a print without its expected output: {expected}"
    assert run_recording_prints(source, "README quick start") == expected


def test_the_comparison_catches_a_stale_comment():
    source = "x = 2\nprint(x + 1)\n# 4\n"
    assert run_recording_prints(source, "stale") != expected_outputs(source)


@pytest.mark.acl
def test_acl_example_runs_as_written():
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    acl = [b for b in blocks if "required_padding" in b]
    assert acl, "README lost its ACL example"
    exec(compile(acl[0], "README ACL example", "exec"), {})


def shell_blocks():
    """The README's runnable shell blocks: those that start in a scratch folder of their own."""
    return [b for b in re.findall(r"```sh\n(.*?)```", README, re.S) if b.startswith('cd "$(mktemp -d)"')]


def run_shell_block(block: str, tmp_path: Path):
    """``block`` run by bash as written, ``acl-ndarray`` and ``python3`` being this Python's
    (the package as the tests import it); (stdout, the scratch folder the block made)."""
    import acl_bridge

    prelude = (f'acl-ndarray() {{ "{sys.executable}" -m acl_bridge "$@"; }}\n'
               f'python3() {{ "{sys.executable}" "$@"; }}\nset -e\n')
    env = dict(os.environ, TMPDIR=str(tmp_path),
               PYTHONPATH=os.pathsep.join([str(Path(acl_bridge.__file__).resolve().parents[1]),
                                           os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(["bash", "-c", prelude + block], capture_output=True, text=True, timeout=600, env=env,
                          cwd=str(tmp_path))
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-3000:]}"
    folders = [p for p in tmp_path.iterdir() if p.is_dir()]
    assert len(folders) == 1, folders  # the block's mktemp -d
    return done.stdout, folders[0]


def test_the_readme_has_its_two_shell_blocks():
    blocks = shell_blocks()
    assert len(blocks) == 2 and "describe" in blocks[0] and "run-tflite" in blocks[1]
    assert all("docs/" not in b for b in blocks)  # nothing the repository tracks is written


def test_describe_block_runs_as_written_and_draws_the_readmes_picture(tmp_path):
    """The picture the README shows is the one its command draws, pixel for pixel."""
    image = pytest.importorskip("PIL.Image", reason="Pillow draws the PNG")
    out, folder = run_shell_block(shell_blocks()[0], tmp_path)
    assert "strides                         72,36,6,1 elements = 288,144,24,4 bytes" in out
    assert "element (2,3)                   at offset 17" in out  # seeds/002's worked example
    with image.open(folder / "memory-map.png") as drawn, image.open(ROOT / "docs" / "memory-map-adr-padded.png") as shown:
        assert drawn.size == shown.size and drawn.convert("RGB").tobytes() == shown.convert("RGB").tobytes()


def test_models_block_runs_as_written(tmp_path):
    """The fetched photograph and model, an input made by the block itself: a face found on
    the astronaut, the model's two outputs written, Visual Wake Words' answer."""
    from acl_bridge import native_available
    from acl_bridge.models.apps.fetch import FetchError, model_path, photo_path

    if native_available()[0]:
        from acl_bridge import native

        if native.acl_version().startswith("20."):  # 16 s emulated, the same commands as on 24.11
            pytest.skip("the README's models block runs as written on the host and on ACL 24.11 (trixie); "
                        "ACL 20.08 runs these models in tests/models/test_runner_acl.py and test_cli_models.py")
    try:
        photo_path(), model_path("face_detection_front"), model_path("visual_wake_words")
    except FetchError as e:  # the block's `acl-ndarray fetch` would download them
        pytest.skip(f"the models are not in the cache (acl-ndarray fetch): {e}")
    out, folder = run_shell_block(shell_blocks()[1], tmp_path)
    faces = json.loads(next(line for line in out.splitlines() if line.startswith("[")))
    assert len(faces) == 1 and faces[0]["score"] > 0.9 and len(faces[0]["landmarks"]) == 468
    assert (folder / "boxes.png").stat().st_size > 0 and (folder / "input.npy").is_file()
    import numpy as np

    with np.load(folder / "outputs.npz") as outputs:
        assert {k: v.shape for k, v in outputs.items()} == {"regressors": (1, 896, 16), "classificators": (1, 896, 1)}
    assert re.search(r"^person 0\.\d+$", out, re.M) and re.search(r"^non_person 0\.\d+$", out, re.M)


def test_robustness_counts_are_the_test_codes():
    """docs/robustness.md states what `python docs/robustness_counts.py` derives from the tests."""
    out = subprocess.run([sys.executable, str(ROOT / "docs" / "robustness_counts.py")], capture_output=True,
                         text=True, timeout=300, cwd=str(ROOT))
    assert out.returncode == 0, out.stderr[-3000:]
    n = dict(line.split(": ") for line in out.stdout.strip().splitlines())
    page = (ROOT / "docs" / "robustness.md").read_text()
    for text in (
        f"**{n['catalogue rows (bridge)']} bad inputs** ({n['catalogue rows, pure Python']} pure Python, "
        f"{n['catalogue rows, native']} native) plus {n['catalogue rows (ndarray)']} for `ndarray/`",
        f"**{n['lifetime tests']} tests**",
        f"its {n['catalogue rows, native']} native rows",
        f"all **{n['fuzzed function kinds']} function kinds**",
        f"**{n['fuzz cases, emulated default']} cases**",
        f"**{n['concurrency scenarios']} scenarios**",
        f"**{n['memory warm-up cycles']} warm-up cycles**",
        f"**{n['memory cycles (target)']} cycles** (at least {n['memory cycles (minimum)']}",
        f"{n['catalogue rows, pure Python']} pure + {n['catalogue rows, native']} native",
        f"**{n['model command rows']} classes of input** to the model commands and their API "
        f"({n['model command rows, API']} API calls, the rest command lines) in {n['model command themes']} themes",
        f"for the {n['model command rows, accepted with an oracle']} classes that must work an oracle",
        f"| {n['model command rows']} | {n['model command rows']} | 0 | 0 | 0 | 0 |",
        "python docs/robustness_counts.py",
    ):
        assert text in page, text


@pytest.mark.parametrize("page", ["README.md", *sorted(p.relative_to(ROOT).as_posix()
                                                       for p in (ROOT / "docs").glob("*.md"))])
def test_relative_links_resolve(page):
    path = ROOT / page
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
        if "://" not in target:
            assert (path.parent / target).exists(), f"{page} links to {target}, which does not exist"


def _package_file(name):
    words = []
    for line in (ROOT / "docker" / f"packages-{name}.txt").read_text().splitlines():
        words += line.split("#")[0].split()
    return " ".join(words)


def test_docker_readme_lists_what_the_scripts_install():
    """docker/README.md's package lists are emulate.sh's HOST_REQUIREMENTS, the apt packages
    it installs on the host, and the package files, word for word."""
    readme = (ROOT / "docker" / "README.md").read_text()
    emulate = (ROOT / "docker" / "emulate.sh").read_text()
    for variable in ("HOST_REQUIREMENTS", "HOST_OLDEST_NUMPY_REQUIREMENTS"):
        host_venv = re.search(rf'^{variable}="([^"]+)"', emulate, re.M).group(1)
        assert f"`{host_venv}`" in readme, variable
    oldest = re.search(r'^HOST_OLDEST_NUMPY_REQUIREMENTS=".*numpy==([\d.]+)', emulate, re.M).group(1)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'"numpy>={oldest.rsplit(".", 1)[0]},' in pyproject, "the oldest numpy tested is pyproject's lower bound"
    tests = re.search(r'^HOST_OLDEST_NUMPY_TESTS="([^"]+)"', emulate, re.M).group(1).split()
    assert tests and all(sorted(ROOT.glob(t)) for t in tests), tests
    apt = set(re.findall(r"need\+=\(([\w.-]+)\)", emulate)) | set(re.search(r"apt_install (nodejs npm)", emulate)
                                                                      .group(1).split())
    section = readme[readme.index("## Packages"):readme.index("## Base images")]
    assert apt == {"qemu-user-static", "debootstrap", "debian-archive-keyring", "python3-venv", "util-linux",
                   "podman", "runc", "nodejs", "npm"}
    assert all(f"`{p}`" in section for p in apt), apt
    for name in ("trixie", "bookworm", "cross", "cl-amd64"):
        assert f"`{_package_file(name)}`" in section, name
    assert 'fetch.py" --image-wheels' in emulate and "fetch.py --image-wheels" in section
