import { z } from 'zod';
import {
  InferencePlatformRestore,
  InferencePlatformV1beta1,
} from '@cv-platform/inference-platform-api';

/** Platforms as the backend serves them: the storage version, cv.platform.tech/v1beta1. */

/*
 * The REST and SSE contract between the inference-platform backend plugin
 * (mounted at /api/inference-platform) and its clients.
 *
 * Clusters: the backend manages one or more clusters (inferencePlatform.clusters);
 * the first is the default. Every route below takes `?cluster=<name>`
 * (POST /platforms: the body's `cluster`); without it the default cluster is
 * meant, except GET /platforms, which then lists every cluster. An unknown
 * cluster is 404; one not (yet) reachable is 503.
 *
 * REST
 *   GET    /clusters                       -> ClusterList
 *   GET    /platforms                      -> PlatformListResponse
 *   GET    /platforms/:namespace/:name     -> PlatformDetail
 *   POST   /platforms                      CreatePlatformRequest -> 201 InferencePlatform
 *   PATCH  /platforms/:namespace/:name     PatchPlatformRequest  -> 200 InferencePlatform
 *   DELETE /platforms/:namespace/:name     -> 204
 *   POST   /platforms/:namespace/:name/backups   -> 202 BackupRequested ("back up now";
 *          409 when the platform has no spec.backup)
 *   GET    /platforms/:namespace/:name/restores  -> RestoreList (newest first)
 *   GET    /platforms/:namespace/:name/objects/:kind/:objectName -> the object as the API server has it
 *          now, without managedFields (the platform itself or one of detail.objects)
 *   GET    /platforms/:namespace/:name/pods/:pod/log?container=&previous=&tailLines=
 *          -> text/plain (the pod log endpoint's answer; 404 for a pod of another platform)
 *   POST   /platforms/:namespace/:name/restores  CreateRestoreRequest -> 201 InferencePlatformRestore
 *          (400 unless backupId names a Succeeded entry of status.backup.history)
 * Errors: { error: { name, message }, response: { statusCode } } (Backstage's error shape);
 * 400 InputError (validation, including the API server's own message), 401, 403, 404, 409.
 *
 * SSE: GET /events?cluster= (text/event-stream), one cluster per stream, resumable with the Last-Event-ID header
 *   event: snapshot  data: SnapshotEvent   (always first, and again after `reset`)
 *   event: ADDED | MODIFIED | DELETED      data: PlatformChangeEvent
 *   event: reset     data: { reason }      (Last-Event-ID too old: a fresh snapshot follows)
 *   `id:` on every event; `: heartbeat` comments every 15 s.
 */

/**
 * One cluster the backend manages.
 *
 * @public
 */
export interface ClusterInfo {
  name: string;
  /** The first configured cluster: meant where a request names none. */
  default: boolean;
  /** Configured and reachable far enough to have loaded its platforms. */
  available: boolean;
}

/**
 * Answer to GET /clusters, in configuration order.
 *
 * @public
 */
export interface ClusterList {
  items: ClusterInfo[];
}

/**
 * Answer to GET /platforms.
 *
 * @public
 */
export interface PlatformListResponse {
  items: PlatformSummary[];
  /** Clusters listed as missing: unreachable or still loading (GET /platforms without ?cluster). */
  unavailable?: Array<{ cluster: string; message: string }>;
}

/**
 * Change events of the live feed.
 *
 * @public
 */
export const PLATFORM_EVENT_TYPES = ['ADDED', 'MODIFIED', 'DELETED'] as const;
/** @public */
export type PlatformEventType = (typeof PLATFORM_EVENT_TYPES)[number];

/** @public */
export interface SnapshotEvent {
  /** The cluster this stream follows. */
  cluster: string;
  items: InferencePlatformV1beta1[];
}

/** @public */
export interface PlatformChangeEvent {
  /** The cluster this stream follows. */
  cluster: string;
  type: PlatformEventType;
  platform: InferencePlatformV1beta1;
}

/** @public */
export interface ResetEvent {
  reason: string;
}

/** @public */
export interface ReplicaCount {
  ready: number;
  desired: number;
}

/** @public */
export interface EventSummary {
  type: string;
  reason: string;
  message: string;
  count: number;
  lastTimestamp?: string;
  involvedObject: { kind: string; name: string };
}

/** @public */
export interface PodSummary {
  name: string;
  component: 'qdrant' | 'inference' | string;
  phase: string;
  ready: boolean;
  nodeName?: string;
  restarts: number;
  /** Why it is not ready, if it is not (unschedulable, init failure...). */
  reason?: string;
  createdAt?: string;
  /** Its init containers and containers, by name, for the logs view. */
  initContainers: string[];
  containers: string[];
}

/**
 * Rollout state of one of the platform's workloads (StatefulSet or Deployment).
 *
 * @public
 */
export interface WorkloadRollout {
  kind: 'StatefulSet' | 'Deployment';
  name: string;
  /** qdrant, inference, or the inference canary. */
  role: 'qdrant' | 'inference' | 'canary';
  desired: number;
  replicas: number;
  ready: number;
  updated: number;
  /** Deployments only. */
  available?: number;
  /** StatefulSets: the revision pods run and the one they are moving to. */
  currentRevision?: string;
  updateRevision?: string;
  /** StatefulSets: pods at or above this ordinal are updated (the operator's ordered upgrade). */
  partition?: number;
  /** The controller has not seen the latest spec yet, or pods are not all on the latest template. */
  rolling: boolean;
  /** Deployments: the Progressing/Available conditions' reasons and messages. */
  conditions: Array<{ type: string; status: string; reason?: string; message?: string }>;
}

/** @public */
export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
}

/**
 * One PersistentVolumeClaim of the platform (Qdrant storage, a model volume).
 *
 * @public
 */
export interface VolumeSummary {
  name: string;
  phase: string;
  requested?: string;
  capacity?: string;
  storageClassName?: string;
  accessModes: string[];
  /** A resize in progress or refused (the claim's conditions). */
  conditions: Array<{ type: string; message?: string }>;
}

/** @public */
export interface PlatformSummary {
  /** The cluster the platform runs in. */
  cluster: string;
  platform: InferencePlatformV1beta1;
  qdrant: ReplicaCount;
  inference: ReplicaCount;
  recentEvents: EventSummary[];
}

/** @public */
export interface PlatformDetail extends PlatformSummary {
  statefulSet?: unknown;
  deployment?: unknown;
  pods: PodSummary[];
  events: EventSummary[];
  workloads: WorkloadRollout[];
  volumes: VolumeSummary[];
  /** The platform and every child the operator keeps, for the YAML view (GET .../objects/:kind/:name). */
  objects: ObjectRef[];
}

const dnsLabel = z
  .string()
  .min(1)
  .max(63)
  .regex(
    /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
    'must be a DNS label: lower case letters, digits and -',
  );

const quantity = z.union([z.string().min(1), z.number()]);
const resourceList = z.record(z.string(), quantity);

/** @public */
export const createPlatformRequestSchema = z.object({
  /** Default: the backend's default cluster. */
  cluster: dnsLabel.optional(),
  namespace: dnsLabel,
  name: dnsLabel,
  /** Catalog entity ref of the owner (user or group), kept as an annotation. */
  owner: z.string().min(1).optional(),
  /** Catalog entity ref of the component this platform serves. */
  entityRef: z.string().min(1).optional(),
  spec: z.object({
    qdrant: z
      .object({
        version: z.string().min(1),
        replicas: z.number().int().optional(),
        storage: z
          .object({
            size: quantity.optional(),
            className: z.string().optional(),
          })
          .passthrough()
          .optional(),
      })
      .passthrough(),
    inference: z
      .object({
        image: z.string().min(1),
        model: z.object({ url: z.string().min(1) }).passthrough(),
        replicas: z.number().int().optional(),
        resources: z
          .object({
            requests: resourceList.optional(),
            limits: resourceList.optional(),
          })
          .optional(),
        gpu: z
          .object({
            count: z.number().int().optional(),
            type: z.string().optional(),
          })
          .optional(),
      })
      .passthrough(),
    backup: z.object({}).passthrough().optional(),
  }),
});
/** @public */
export type CreatePlatformRequest = z.infer<typeof createPlatformRequestSchema>;

/**
 * Same rule as the CRDs' collection names (spec.inference.collection, a restore's spec.collections).
 *
 * @public
 */
export const COLLECTION_NAME_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const collectionName = () =>
  z
    .string()
    .regex(
      COLLECTION_NAME_PATTERN,
      'must be a collection name: letters, digits, _ and -',
    );

/** @public */
export const patchPlatformRequestSchema = z
  .object({
    qdrant: z
      .object({
        replicas: z.number().int().optional(),
        version: z.string().min(1).optional(),
      })
      .strict()
      .optional(),
    inference: z
      .object({
        replicas: z.number().int().optional(),
        model: z
          .object({ url: z.string().min(1) })
          .strict()
          .optional(),
        collection: collectionName().optional(),
        /** A merge patch: null removes the canary (roll back), fields change it. */
        canary: z
          .object({
            model: z
              .object({ url: z.string().min(1) })
              .strict()
              .optional(),
            weight: z.number().int().min(0).max(100).optional(),
            collection: collectionName().optional(),
          })
          .strict()
          .nullable()
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine(
    v => v.qdrant || v.inference,
    'nothing to change: give qdrant and/or inference fields',
  );
/** @public */
export type PatchPlatformRequest = z.infer<typeof patchPlatformRequestSchema>;

/**
 * Answer to POST /platforms/:namespace/:name/backups.
 *
 * @public
 */
export interface BackupRequested {
  /** The value set on the backup-requested-at annotation (RFC 3339). */
  requestedAt: string;
}

/** @public */
export const createRestoreRequestSchema = z
  .object({
    /** status.backup.history[].id of a Succeeded backup. */
    backupId: z.string().min(1).max(128),
    /** Only these collections (default: every collection in the backup). */
    collections: z
      .array(
        z
          .string()
          .regex(
            COLLECTION_NAME_PATTERN,
            'must be a collection name: letters, digits, _ and -',
          ),
      )
      .min(1)
      .max(100)
      .optional(),
  })
  .strict();
/** @public */
export type CreateRestoreRequest = z.infer<typeof createRestoreRequestSchema>;

/**
 * Answer to GET /platforms/:namespace/:name/restores.
 *
 * @public
 */
export interface RestoreList {
  items: InferencePlatformRestore[];
}
