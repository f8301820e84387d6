"""Run detect-secrets (default plugins and filters) on texts; runs inside the benchmark's venv.

Reads a JSON list of texts on stdin, writes a JSON list with, for each text, the
sorted line numbers detect-secrets reports. Each text is scanned as a Markdown file,
since that is what a memory entry is.
"""

from __future__ import annotations

import json
import pathlib
import sys
import tempfile

from detect_secrets import SecretsCollection  # type: ignore[import-not-found]
from detect_secrets.settings import default_settings  # type: ignore[import-not-found]


def main() -> None:
    texts = json.load(sys.stdin)
    results = []
    with tempfile.TemporaryDirectory() as folder, default_settings():
        for index, text in enumerate(texts):
            path = pathlib.Path(folder) / f"entry{index}.md"
            path.write_text(text, encoding="utf-8")
            collection = SecretsCollection()
            collection.scan_file(str(path))
            results.append(sorted({secret.line_number for _, secret in collection}))
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
