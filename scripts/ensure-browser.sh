#!/usr/bin/env bash
# The browser e2e tests drive Debian's Chromium (no downloaded browsers).
set -euo pipefail
if [[ ! -x /usr/bin/chromium ]]; then
  echo "installing chromium from Debian ..." >&2
  if [[ $(id -u) -ne 0 ]]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
