#!/usr/bin/env bash
# Runs the portal (app on :3000, backend on :7007) with the operator embedded.
# Without KUBECONFIG it first starts the embedded local control plane with a
# real node and the dev model store and points the portal at it; with
# KUBECONFIG set it uses that cluster instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/ensure-deps.sh
# TechDocs builds the Docs tab with mkdocs (a cached venv, see the script).
# Without it the portal still runs; only the Docs tab cannot build.
if mkdocs_bin=$(bash scripts/ensure-mkdocs.sh); then
  export PATH="$mkdocs_bin:$PATH"
else
  echo "warning: mkdocs could not be installed (scripts/ensure-mkdocs.sh): the portal's Docs tab will not build" >&2
fi
if [[ -n "${KUBECONFIG:-}" ]]; then
  echo "using the cluster from KUBECONFIG=$KUBECONFIG" >&2
  exec npx backstage-cli repo start
fi
bash tools/control-plane/build.sh >/dev/null
# Real pods by default: platforms run as processes on the real node, models
# come from the dev model store (see README, "Real pods"). Where the real node
# cannot run, or with CV_DEV_SIMULATED=1, KWOK's simulated nodes instead (no
# root needed), saying why.
simulated=""
if [[ "${CV_DEV_SIMULATED:-}" == 1 ]]; then
  simulated="CV_DEV_SIMULATED=1"
elif [[ "$(uname -s)" != Linux ]]; then
  simulated="the real node runs pods as Linux processes in network namespaces, and this is $(uname -s)"
elif [[ $(id -u) -ne 0 ]]; then
  simulated="the real node needs root (network namespaces, mounts, iptables), and this runs as $(id -un)"
elif ! bash scripts/ensure-node-tools.sh; then
  simulated="the real node's tools (iproute2, iptables, nsenter, its agent and kube-proxy) could not be installed or built (above)"
fi
if [[ -n "$simulated" ]]; then
  echo "npm run dev: KWOK's simulated nodes instead of the real node: $simulated. Pods become Ready without running." >&2
  exec npx tsx packages/local-cluster/src/cli.ts run -- npx backstage-cli repo start
fi
# The portal runs on the host, outside the cluster: its operator reads each
# Qdrant's cluster state through the API server's service proxy.
export APP_CONFIG_inferencePlatform_operator_qdrantAccess=apiServerProxy
exec npx tsx packages/local-cluster/src/cli.ts run --real-node -- bash -c \
  'npx tsx scripts/devModelStore.ts & store=$!; trap "kill $store" EXIT; npx backstage-cli repo start'
