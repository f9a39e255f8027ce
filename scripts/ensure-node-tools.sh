#!/usr/bin/env bash
# The real node (pods as processes) needs iproute2, iptables and nsenter from
# Debian, and builds its agent and kube-proxy from Go modules (cached).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
missing=()
command -v ip >/dev/null || missing+=(iproute2)
command -v iptables >/dev/null || missing+=(iptables)
command -v nsenter >/dev/null || missing+=(util-linux)
if (( ${#missing[@]} )); then
  echo "installing ${missing[*]} from Debian ..." >&2
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
bash tools/node-agent/build.sh >/dev/null
