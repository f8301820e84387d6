"""Run a lean-harness hook (or lh itself) from the plugin's own copy of the source.

`python3 -S hooks/run.py EVENT` runs one hook with the standard library only;
`python3 hooks/run.py lh ARGS...` runs the full `lh` when its dependencies are importable
(adr/0011-how-the-plugin-finds-lh.md).
"""

import os
import sys

if sys.version_info < (3, 11):  # noqa: UP036 (the system python3 can be older than the package allows)
    sys.stderr.write("lean-harness needs Python 3.11 or newer; this is {}.{}\n".format(*sys.version_info[:2]))
    raise SystemExit(1)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src"))


def run_lh(args: list[str]) -> int:
    """The full lh from this source when its dependencies import; else how to install it."""
    from importlib.util import find_spec

    missing = [name for name in ("tiktoken", "jsonschema", "tomli_w") if find_spec(name) is None]
    if missing:
        sys.stderr.write(
            f"lh: this Python ({sys.executable}) lacks {', '.join(missing)}, which the full lh needs;"
            f" install lh from this plugin with: {install_command()}\n"
        )
        return 2
    from lean_harness.cli import main as lh_main

    return lh_main(args)


def install_command() -> str:
    """A command that installs lean-harness from this plugin's own folder on this machine."""
    import shlex
    import shutil
    import sysconfig

    root = shlex.quote(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if shutil.which("pipx"):
        return f"pipx install {root}"
    if shutil.which("uv"):
        return f"uv tool install {root}"
    python = shlex.quote(sys.executable)
    if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")):
        # This Python refuses pip installs outside a virtual environment (PEP 668).
        home = "~/.local/share/lean-harness"
        return (
            f"{python} -m venv {home} && {home}/bin/pip install {root}"
            f" && mkdir -p ~/.local/bin && ln -sf {home}/bin/lh ~/.local/bin/lh"
        )
    if sys.prefix != sys.base_prefix:
        return f"{python} -m pip install {root}"  # a virtual environment: install into it
    return f"{python} -m pip install --user {root}"


if sys.argv[1:2] == ["lh"]:
    raise SystemExit(run_lh(sys.argv[2:]))

from lean_harness.hooks import main  # noqa: E402 (the bundled source is on the path only now)

raise SystemExit(main())
