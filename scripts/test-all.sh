#!/usr/bin/env bash
# The one test command: installs what is missing, builds the local control
# plane (cached outside the repo), starts it once for the whole run, runs every
# package's tests against it, then the portal smoke test.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# Each phase's wall time, printed as it ends and summed up at exit: the
# README's test table comes from these lines.
phase_start=$SECONDS
phase_name=setup
phases=()
phase() {
  local took=$((SECONDS - phase_start))
  phases+=("$(printf '%5ds  %s' "$took" "$phase_name")")
  echo "== phase done in ${took}s: $phase_name" >&2
  phase_name=$1
  phase_start=$SECONDS
}
report() {
  phase end
  echo "== test command phases (wall time):" >&2
  printf '%s\n' "${phases[@]}" >&2
  echo "   total ${SECONDS}s" >&2
}
# The Go tools (control plane; helm, whose first build inside a test would
# hold that test's event loop for minutes; the real node) build while npm
# installs.
bash scripts/build-tools.sh &
tools=$!
bash scripts/ensure-deps.sh
wait "$tools"
# Only now: a background job forked while the trap was set would run it too.
trap report EXIT
phase 'api reports'
export CI=true
# The published packages' API (release tags, reports) and dependencies (knip)
# match what is checked in; `npm run build:api-reports` updates them.
npm run --silent check:api-reports
# The API reference page (docs/reference) is generated from the CRD schema;
# `npm run build:docs-reference` updates it.
npm run --silent check:docs-reference
phase 'unit and control-plane tests, portal smoke test'
# The smoke test runs inside the same control plane, so the portal's embedded
# operator really connects to a cluster.
npx tsx packages/local-cluster/src/cli.ts run -- bash -c \
  'npx backstage-cli repo test --maxWorkers=2 --testPathIgnorePatterns=realPods && npx tsx scripts/smoke.ts'
phase 'real pods (one file at a time)'
# Tests on real pods start their own cluster with a real node (one per
# machine: it owns the pod network), so they run one file at a time.
npx backstage-cli repo test --runInBand --testPathPatterns=realPods
phase 'browser: platforms live'
# Browser end-to-end tests start their own control plane, backend and app.
bash scripts/ensure-browser.sh
# platformsLive opens the project's Docs tab, which TechDocs builds with mkdocs.
PATH="$(bash scripts/ensure-mkdocs.sh):$PATH"
export PATH
npx tsc -p e2e --noEmit
npx tsx e2e/platformsLive.e2e.ts
phase 'browser: scaffolder'
# The app bundle was just built by the previous test.
E2E_SKIP_APP_BUILD=1 npx tsx e2e/scaffolderCreate.e2e.ts
phase 'browser: multi-cluster'
# One portal, two clusters.
E2E_SKIP_APP_BUILD=1 npx tsx e2e/multiCluster.e2e.ts
phase 'browser: packed install'
# The packages as an adopter installs them: packed, into an app made from
# create-app's template (new frontend system), built and run in the browser.
npx tsx e2e/packedInstall.e2e.ts
