import { QdrantClusterInfo, QdrantScaleDownStatus } from '@cv-platform/inference-platform-api';
import type { InferenceServerState } from '../inference/InferenceServerStates';
import type { ReloadFailure } from '../inference/ModelHotReload';
import type { ObservedCanary } from './canaryStatus';

/** @public */
export interface ObservedChildren {
  statefulSet?: any;
  deployment?: any;
  qdrantPods: any[];
  inferencePods: any[];
  qdrantCluster?: QdrantClusterInfo;
  /** The Qdrant peers' data volumes (storage-<statefulset>-<n>). */
  qdrantVolumes?: any[];
  /** An ordered Qdrant rollout: its partition and what it waits for. */
  qdrantUpgrade?: { partition: number; waiting?: string; needsDowntime?: boolean };
  /** A Qdrant scale-down under way (peers draining) or blocked. */
  qdrantScaleDown?: QdrantScaleDownStatus;
  /** What each ready inference server says about itself, by pod (when the operator can ask them). */
  inferenceServers?: Record<string, InferenceServerState>;
  /** Servers that could not hot-reload the desired model (they keep serving theirs). */
  modelReloadFailures?: ReloadFailure[];
  /** Why spec.inference.autoscaling cannot be carried out here (KEDA missing). */
  autoscalingUnavailable?: string;
  /** An error from applying children in this pass. */
  reconcileError?: string;
  /** spec.inference.canary: its servers (deployment and inferencePods are then the stable track's). */
  canary?: ObservedCanary;
}
