"""bin/lh, the `lh` the plugin puts on PATH: an installed lh when there is one, else the plugin's
source, which prints a command that installs lh from the plugin's own folder on this machine."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from lean_harness import __version__

REPO = Path(__file__).resolve().parents[1]
INSTALLED = Path(sys.executable).parent / ("lh.exe" if os.name == "nt" else "lh")
pytestmark = pytest.mark.skipif(os.name == "nt", reason="bin/lh is a POSIX sh script")


def bare_python(tmp_path: Path) -> Path:
    """A virtual environment without lean-harness or its dependencies; its bin folder."""
    venv.create(tmp_path / "bare", with_pip=False, symlinks=True)
    return tmp_path / "bare" / "bin"


def tools(tmp_path: Path, *fakes: str) -> Path:
    """A folder with the one outside tool bin/lh needs (dirname) and stand-ins for `fakes`."""
    folder = tmp_path / "tools"
    folder.mkdir()
    dirname = shutil.which("dirname")
    assert dirname is not None
    (folder / "dirname").symlink_to(dirname)
    for name in fakes:
        (folder / name).write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        (folder / name).chmod(0o755)
    return folder


def bin_lh(*args: str, path: list[Path], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join(str(p) for p in path)
    return subprocess.run(
        ["/bin/sh", str(REPO / "bin" / "lh"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.skipif(not INSTALLED.is_file(), reason="lean-harness is not installed next to this Python")
def test_an_installed_lh_on_path_is_the_one_that_runs(tmp_path: Path) -> None:
    done = bin_lh("--version", path=[INSTALLED.parent, tools(tmp_path)], cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, f"lh {__version__}\n", "")


@pytest.mark.parametrize(
    ("fakes", "command"),
    [
        pytest.param(("pipx", "uv"), "pipx install {root}", id="pipx"),
        pytest.param(("uv",), "uv tool install {root}", id="uv"),
        pytest.param((), "{python} -m pip install {root}", id="pip-in-a-virtual-environment"),
    ],
)
def test_without_lh_it_prints_an_install_command_for_this_machine(
    fakes: tuple[str, ...], command: str, tmp_path: Path
) -> None:
    python_bin = bare_python(tmp_path)
    done = bin_lh("--version", path=[python_bin, tools(tmp_path, *fakes)], cwd=tmp_path)
    python = shlex.quote(str(python_bin / "python3"))
    expected = command.format(root=shlex.quote(str(REPO)), python=python)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"lh: this Python ({python_bin / 'python3'}) lacks tiktoken, jsonschema, tomli_w, which the full lh"
        f" needs; install lh from this plugin with: {expected}\n"
    )


def test_without_any_python_it_says_to_install_one(tmp_path: Path) -> None:
    done = bin_lh("--version", path=[tools(tmp_path)], cwd=tmp_path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "lh: no python3 or python on PATH; install Python 3.11 or newer, then run lh again:"
        f" it says how to install itself from {REPO}\n"
    )
