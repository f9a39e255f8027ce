import fs from 'node:fs';
import path from 'node:path';

const STAGE_FILES = [
  'node/fast/node-initialize.yaml',
  'node/heartbeat-with-lease/node-heartbeat-with-lease.yaml',
  'pod/fast/pod-ready.yaml',
  'pod/fast/pod-complete.yaml',
  'pod/fast/pod-delete.yaml',
  'volume/fast/pvc-provision.yaml',
  'volume/fast/pv-bind.yaml',
  'volume/fast/pv-delete.yaml',
  'volume/fast/pvc-delete.yaml',
];

/**
 * Builds KWOK's --config: KWOK's own "fast" stages (Nodes Ready at once, Pods
 * Ready at once, volumes provisioned), widened so any StorageClass is
 * provisioned (the samples ask for gp2). Containers that must really run
 * (and really fail) run on the real node instead.
 */
export function kwokConfig(stagesDir: string): string {
  const docs = STAGE_FILES.map(file => {
    let text = fs.readFileSync(path.join(stagesDir, file), 'utf8');
    text = text.replace(
      /self\.spec\.storageClassName == 'kwok-volume'/g,
      "has(self.spec.storageClassName) && self.spec.storageClassName != ''",
    );
    return text.trim();
  });
  return `${docs.join('\n---\n')}\n`;
}
