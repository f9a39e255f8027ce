#!/usr/bin/env bash
# Installs npm dependencies when node_modules is missing or older than the
# lockfile. onnxruntime-node's install script would fetch CUDA binaries from
# outside the package registry; its CPU binaries ship in the package.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export ONNXRUNTIME_NODE_INSTALL=skip
if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  echo "installing npm dependencies (npm ci) ..." >&2
  npm ci --no-audit --no-fund
fi
