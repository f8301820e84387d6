#!/usr/bin/env bash
# Rerun the credential-scanner benchmark, with detect-secrets in a venv of its own
# (it is a reference here, never a dependency of lean-harness).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if [ ! -x "$here/.venv/bin/python" ]; then
  python3 -m venv "$here/.venv"
  "$here/.venv/bin/pip" install --quiet "detect-secrets==1.5.0"
fi
exec python3 "$here/run.py" --detect-secrets-python "$here/.venv/bin/python" "$@"
