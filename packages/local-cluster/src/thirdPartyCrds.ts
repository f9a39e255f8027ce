import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yaml from 'js-yaml';

/**
 * CRDs of projects the operator works with when they are installed, taken
 * from their own Go modules (the module proxy is the one source of them
 * here), pinned: KEDA's ScaledObject and the Prometheus Operator's monitors.
 */
const SOURCES = {
  keda: {
    module: 'github.com/kedacore/keda/v2',
    version: 'v2.17.2',
    files: ['config/crd/bases/keda.sh_scaledobjects.yaml'],
  },
  prometheusOperator: {
    module: 'github.com/prometheus-operator/prometheus-operator',
    version: 'v0.85.0',
    files: [
      'example/prometheus-operator-crd/monitoring.coreos.com_servicemonitors.yaml',
      'example/prometheus-operator-crd/monitoring.coreos.com_podmonitors.yaml',
    ],
  },
} as const;

export type ThirdParty = keyof typeof SOURCES;

/** The CRD objects of a third-party project, downloaded into the Go module cache once. */
export function thirdPartyCrds(project: ThirdParty): any[] {
  const { module, version, files } = SOURCES[project];
  const out = execFileSync(
    'go',
    ['mod', 'download', '-json', `${module}@${version}`],
    {
      cwd: os.tmpdir(),
      encoding: 'utf8',
      env: { ...process.env, GO111MODULE: 'on' },
    },
  );
  const { Dir: dir, Error: error } = JSON.parse(out);
  if (!dir)
    throw new Error(
      `go mod download ${module}@${version}: ${error ?? 'no directory'}`,
    );
  return files.map(f => yaml.load(fs.readFileSync(path.join(dir, f), 'utf8')));
}
