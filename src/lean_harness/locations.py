"""Where a project keeps its config, its memory and its cache, as the config's text says.

Read at every start, so with a line scan of the config as lh writes it (a `[memory]` table of
`key = "value"` lines); only a config written otherwise is parsed with tomllib. A value the config
schema refuses (absolute, a drive, a `..` part) counts as unset: nothing outside the project is used.
"""

from __future__ import annotations

import os

CONFIG_PATH = ".agents/lh.toml"
MEMORY_DIR = ".agents/memory"
CACHE_DIR = ".agents/.cache"


def of_text(text: str) -> tuple[str, str]:
    """memory.dir and memory.cacheDir of a config's text, defaults applied."""
    found = written(text)
    if found is None:
        found = parsed(text)
    return inside(found.get("dir"), MEMORY_DIR), inside(found.get("cacheDir"), CACHE_DIR)


def personal_dir(root: str, memory_dir: str) -> str:
    """The personal scope's folder, which git ignores (adr/0040): beside the memory dir, its name with
    `.local`; `.local` in the project when the memory dir is the project's own folder."""
    folder = os.path.normpath(os.path.join(root, memory_dir))
    return os.path.join(folder, ".local") if folder == os.path.normpath(root) else folder + ".local"


def inside(value: object, default: str) -> str:
    """`value` when it is a relative path without a `..` part (as config.schema.json says), else `default`."""
    if not isinstance(value, str) or not value or value[0] in "/\\" or "\n" in value:
        return default
    if value[1:2] == ":" and value[0].isascii() and value[0].isalpha():  # a drive: C:x, c:/x
        return default
    if ".." in value.replace("\\", "/").split("/"):
        return default
    return value


def written(text: str) -> dict[str, str] | None:
    """memory.dir and memory.cacheDir as written in config text, or None when only tomllib can tell."""
    if '"""' in text or "'''" in text:
        return None  # a multi-line string may hold lines that read as keys
    table = ""
    found: dict[str, str] = {}
    for raw in text.split("\n"):  # TOML ends lines at LF (or CRLF) alone: U+2028 is not a line break
        line = raw.strip(" \t\r")  # TOML's whitespace; U+2028 and its kind are not
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            table = line.partition("#")[0].replace(" ", "").replace("\t", "")
            if "'" in table or '"' in table:
                return None  # a quoted table name: ["memory"] is [memory]
            continue
        key, equals, value = line.partition("=")
        key = key.strip(" \t")
        if not equals:
            continue
        if table == "" and (key[:1] in ("'", '"') or key.startswith("memory")):
            return None  # memory.dir = ..., "memory".dir = ..., memory = { ... }
        if table == "[memory]" and key[:1] in ("'", '"'):
            return None
        if table == "[memory]" and key in ("dir", "cacheDir"):
            value = value.partition("#")[0] if '"' not in value.partition("#")[2] else value
            value = value.strip(" \t")
            inner = value[1:-1]
            if len(value) < 2 or value[0] != '"' or value[-1] != '"' or '"' in inner or "\\" in inner:
                return None
            if key in found:
                return None  # a key set twice: TOML refuses the file
            found[key] = inner
    return found


def parsed(text: str) -> dict[str, str]:
    """memory.dir and memory.cacheDir as tomllib reads them; none from a config it cannot read."""
    import tomllib

    try:
        memory = tomllib.loads(text).get("memory")
    except tomllib.TOMLDecodeError:
        return {}
    if not isinstance(memory, dict):
        return {}
    return {k: v for k in ("dir", "cacheDir") if isinstance(v := memory.get(k), str)}


def records_usage(text: str) -> bool:
    """memory.recordUsage of a config's text (default true); tomllib reads only a config that sets it oddly."""
    said = {line.strip(" \t\r").replace(" ", "") for line in text.split("\n") if "recordUsage" in line}
    if said <= {"recordUsage=true", "recordUsage=false"}:
        return "recordUsage=false" not in said
    import tomllib

    try:
        memory = tomllib.loads(text).get("memory")
    except tomllib.TOMLDecodeError:
        return False  # a config lh cannot read turns nothing on
    return not isinstance(memory, dict) or memory.get("recordUsage") is not False
