#!/usr/bin/env bash
# Builds the real node's programs into a cache outside the repository: the
# node agent (a virtual-kubelet whose pods are local processes) from this
# directory, kube-proxy from the control plane's pinned Kubernetes module, and
# metrics-server (the resource metrics API behind kubectl top and CPU HPAs)
# from its own module.
# The cache key hashes the sources, go.mod/go.sum files and the Go version.
# Prints the bin directory on stdout as its last line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
k8s="$here/kube-proxy"
ms="$here/metrics-server"
cache_root="${CV_PLATFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cv-platform}"
key="$( (go env GOVERSION; cat "$here"/*.go "$here"/go.mod "$here"/go.sum "$here"/build.sh "$k8s"/go.mod "$k8s"/go.sum "$ms"/go.mod "$ms"/go.sum) | sha256sum | cut -c1-16)"
bin="$cache_root/node-$key/bin"
if [[ -f "$bin/.complete" ]]; then
  echo "node binaries up to date in $bin" >&2
  echo "$bin"
  exit 0
fi
mkdir -p "$bin"
export CGO_ENABLED=0 GOFLAGS=-trimpath
build() {
  local dir="$1" name="$2" pkg="$3"
  if [[ -x "$bin/$name" ]]; then echo "  $name: cached" >&2; return; fi
  echo "  building $name ($pkg) ..." >&2
  local start=$SECONDS
  (cd "$dir" && go build -ldflags='-s -w' -o "$bin/$name.tmp" "$pkg")
  mv "$bin/$name.tmp" "$bin/$name"
  echo "  built $name in $((SECONDS - start))s" >&2
}
echo "building the real node into $bin" >&2
build "$here" node-agent .
build "$k8s" kube-proxy k8s.io/kubernetes/cmd/kube-proxy
build "$ms" metrics-server sigs.k8s.io/metrics-server/cmd/metrics-server
touch "$bin/.complete"
echo "$bin"
