#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v4, pinned in go.mod beside this script) into a
# cache outside the repository, for the chart tests (lint, template). The
# cache key hashes go.mod/go.sum, this script and the Go version. Prints the
# bin directory on stdout as its last line.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_root="${CV_PLATFORM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cv-platform}"
key="$( (go env GOVERSION; cat "$here"/go.mod "$here"/go.sum "$here"/build.sh) | sha256sum | cut -c1-16)"
bin="$cache_root/helm-$key/bin"
if [[ -x "$bin/helm" ]]; then
  echo "helm up to date in $bin" >&2
  echo "$bin"
  exit 0
fi
mkdir -p "$bin"
echo "building helm into $bin ..." >&2
start=$SECONDS
(cd "$here" && CGO_ENABLED=0 GOFLAGS=-trimpath go build -ldflags='-s -w' -o "$bin/helm.tmp" helm.sh/helm/v4/cmd/helm)
mv "$bin/helm.tmp" "$bin/helm"
echo "built helm in $((SECONDS - start))s" >&2
echo "$bin"
