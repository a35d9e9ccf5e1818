"""The README's code runs as written and prints what it says (the quick start everywhere, the
ACL example on arm64); the figures docs/robustness.md states are the test code's; every
relative link of the README and docs/ points at a file that exists."""

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
    host_venv = re.search(r'^HOST_REQUIREMENTS="([^"]+)"', emulate, re.M).group(1)
    assert f"`{host_venv}`" in readme
    apt = set(re.findall(r"need\+=\(([\w.-]+)\)", emulate)) | set(re.search(r"apt_install (nodejs npm)", emulate)
                                                                      .group(1).split())
    section = readme[readme.index("## Packages"):readme.index("## Base images")]
    assert apt == {"qemu-user-static", "debootstrap", "debian-archive-keyring", "python3-venv", "util-linux",
                   "podman", "runc", "nodejs", "npm"}
    assert all(f"`{p}`" in section for p in apt), apt
    for name in ("trixie", "bookworm", "cross", "cl-amd64"):
        assert f"`{_package_file(name)}`" in section, name
    assert 'fetch.py" --image-wheels' in emulate and "fetch.py --image-wheels" in section
