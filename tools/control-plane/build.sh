#!/usr/bin/env bash
# Builds the local control plane (etcd, kube-apiserver, kube-controller-manager,
# kube-scheduler, kubectl, kwok) from the pinned Go modules beside this script
# into a cache outside the repository. The cache key is a hash of the go.mod/go.sum
# files and the Go version, so a version bump rebuilds and an unchanged tree
# reuses the binaries. Prints the bin directory on stdout as its last line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${CV_PLATFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cv-platform}"
key="$( (go env GOVERSION; cat "$here"/kubernetes/go.mod "$here"/kubernetes/go.sum "$here"/kwok/go.mod "$here"/kwok/go.sum "$here"/build.sh) | sha256sum | cut -c1-16)"
bin="$cache_root/control-plane-$key/bin"
if [[ -f "$bin/.complete" ]]; then
  echo "control plane binaries up to date in $bin" >&2
  echo "$bin"
  exit 0
fi
mkdir -p "$bin"
export CGO_ENABLED=0 GOFLAGS=-trimpath
# Stamp the Kubernetes release the modules pin, as its own build does: a
# module build otherwise reports v0.0.0-master, which charts' kubeVersion
# constraints (and kubectl version skew checks) refuse.
k8s_version="$(cd "$here/kubernetes" && go list -m -f '{{.Version}}' k8s.io/kubernetes)"
k8s_minor="$(echo "$k8s_version" | cut -d. -f2)"
version_flags=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  version_flags+=" -X $p.gitVersion=$k8s_version -X $p.gitMajor=1 -X $p.gitMinor=$k8s_minor -X $p.gitTreeState=clean"
done
build() {
  local dir="$1" name="$2" pkg="$3" ldflags="-s -w"
  if [[ -x "$bin/$name" ]]; then echo "  $name: cached" >&2; return; fi
  echo "  building $name ($pkg) ..." >&2
  local start=$SECONDS
  [[ "$dir" == kubernetes && "$name" != etcd ]] && ldflags+="$version_flags"
  (cd "$here/$dir" && go build -ldflags="$ldflags" -o "$bin/$name.tmp" "$pkg")
  mv "$bin/$name.tmp" "$bin/$name"
  echo "  built $name in $((SECONDS - start))s" >&2
}
echo "building control plane into $bin (first build takes several minutes)" >&2
build kubernetes etcd go.etcd.io/etcd/server/v3
build kubernetes kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
build kubernetes kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager
build kubernetes kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler
build kubernetes kubectl k8s.io/kubernetes/cmd/kubectl
build kwok kwok sigs.k8s.io/kwok/cmd/kwok
# KWOK v0.8 only simulates what its stage files describe; ship the module's own stages.
stages="$(cd "$here/kwok" && go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage"
rm -rf "$bin/../stages" && mkdir -p "$bin/../stages" && cp -r "$stages"/. "$bin/../stages/"
chmod -R u+w "$bin/../stages"
touch "$bin/.complete"
echo "$bin"
