#!/usr/bin/env bash
# Builds (or finds in the cache outside the repository) every Go tool the
# tests run: the local control plane, helm, and the real node's agent and
# kube-proxy. They are independent, so they build side by side; on a warm
# cache each is a hash check.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash tools/control-plane/build.sh >/dev/null &
control_plane=$!
bash tools/helm/build.sh >/dev/null &
helm=$!
bash scripts/ensure-node-tools.sh &
node_tools=$!
wait "$control_plane"
wait "$helm"
wait "$node_tools"
