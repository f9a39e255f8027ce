#!/usr/bin/env bash
# Runs the portal (app on :3000, backend on :7007) with the operator embedded.
# Without KUBECONFIG it first starts the embedded local control plane and points
# the portal at it; with KUBECONFIG set it uses that cluster instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/ensure-deps.sh
if [[ -n "${KUBECONFIG:-}" ]]; then
  echo "using the cluster from KUBECONFIG=$KUBECONFIG" >&2
  exec npx backstage-cli repo start
fi
bash tools/control-plane/build.sh >/dev/null
exec npx tsx packages/local-cluster/src/cli.ts run -- npx backstage-cli repo start
