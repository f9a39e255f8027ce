#!/usr/bin/env bash
# Installs mkdocs and mkdocs-techdocs-core (pinned in
# scripts/mkdocs-requirements.txt) into a venv outside the repository, keyed
# by the requirements file's hash, so a second run does nothing:
#   ${CV_MKDOCS_VENV_ROOT:-~/.cache/cv-platform}/mkdocs-venv-<hash>
# Prints the venv's bin directory last, for PATH:
#   export PATH="$(bash scripts/ensure-mkdocs.sh):$PATH"
# The TechDocs backend runs `mkdocs build` from PATH (generator runIn: local).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
req=scripts/mkdocs-requirements.txt
hash=$(sha256sum "$req" | cut -c1-16)
root=${CV_MKDOCS_VENV_ROOT:-$HOME/.cache/cv-platform}
venv=$root/mkdocs-venv-$hash
if [[ ! -f $venv/.complete ]]; then
  echo "installing mkdocs + mkdocs-techdocs-core into $venv ..." >&2
  python=${PYTHON:-$(command -v python3)}
  # A half-made venv (interrupted run) has no .complete: start over.
  rm -rf "$venv"
  mkdir -p "$root"
  "$python" -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req" >&2
  "$venv/bin/mkdocs" --version >&2
  touch "$venv/.complete"
fi
echo "$venv/bin"
