import fs from 'node:fs';
import path from 'node:path';

/**
 * Host suffix that the simulated model loader can never download from: the
 * `.invalid` TLD is reserved (RFC 2606) and never resolves, so a real loader
 * would fail on it too. Pods whose model-loader init container points there
 * fail their init container, as a real pod with a bad modelUrl does.
 */
export const UNREACHABLE_MODEL_HOST_SUFFIX = '.invalid';

/** Pod annotation (set by the operator on inference pods) carrying the model URL. */
export const MODEL_URL_ANNOTATION = 'cv.platform.tech/model-url';

// KWOK's CEL environment cannot resolve EnvVar types, so the simulated loader
// reads the model URL from the pod annotation instead of the init container env.
const FAILS_DOWNLOAD = `has(self.metadata.annotations) && '${MODEL_URL_ANNOTATION}' in self.metadata.annotations && self.metadata.annotations['${MODEL_URL_ANNOTATION}'].contains('${UNREACHABLE_MODEL_HOST_SUFFIX}/')`;

const modelDownloadFailedStage = `apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: pod-model-download-failed
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Pending'
    - key: '.spec.nodeName'
      operator: 'Exists'
    - cel:
        expression: >-
          ${FAILS_DOWNLOAD}
    - key: '.status.initContainerStatuses'
      operator: 'DoesNotExist'
  next:
    statusTemplate: |
      {{ $now := Now }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ContainersNotInitialized
        message: "containers with incomplete status: [model-loader]"
        type: Initialized
      - lastTransitionTime: {{ $now | Quote }}
        status: "False"
        reason: ContainersNotReady
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        status: "True"
        type: PodScheduled
      initContainerStatuses:
      {{ range $index, $item := .spec.initContainers }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 3
        started: false
        state:
          waiting:
            reason: CrashLoopBackOff
            message: "back-off 40s restarting failed container={{ $item.name }}"
        lastState:
          terminated:
            exitCode: 1
            reason: Error
            message: "model download failed: could not resolve host in MODEL_URL"
            startedAt: {{ $now | Quote }}
            finishedAt: {{ $now | Quote }}
      {{ end }}
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          waiting:
            reason: PodInitializing
      {{ end }}
      hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
      podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
      phase: Pending
      startTime: {{ $now | Quote }}
`;

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
 * provisioned (the samples ask for gp2), plus the model-download failure.
 */
export function kwokConfig(stagesDir: string): string {
  const docs = STAGE_FILES.map(file => {
    let text = fs.readFileSync(path.join(stagesDir, file), 'utf8');
    text = text.replace(
      /self\.spec\.storageClassName == 'kwok-volume'/g,
      "has(self.spec.storageClassName) && self.spec.storageClassName != ''",
    );
    if (file === 'pod/fast/pod-ready.yaml') {
      const anchor = '  selector:\n    matchExpressions:\n';
      text = text.replace(
        anchor,
        `${anchor}    - cel:\n        expression: >-\n          !(${FAILS_DOWNLOAD})\n`,
      );
    }
    return text.trim();
  });
  docs.push(modelDownloadFailedStage.trim());
  return `${docs.join('\n---\n')}\n`;
}
