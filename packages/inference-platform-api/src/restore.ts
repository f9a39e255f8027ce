import { JSONSchemaProps } from './crd';
import { Condition, GROUP, ObjectMeta, VERSION } from './types';

/**
 * InferencePlatformRestore: a one-shot request to recover a platform's Qdrant
 * collections from one of its backups. A resource of its own, not a field of
 * the platform: a restore has a lifecycle (Pending, Running, Succeeded,
 * Failed) and a history worth keeping (`kubectl get iprestore`), it must not
 * run again when a GitOps tool re-applies the platform, and who may restore
 * (overwrite data) is granted apart from who may edit the platform.
 *
 * @public
 */
export const RESTORE_KIND = 'InferencePlatformRestore';
/** @public */
export const RESTORE_PLURAL = 'inferenceplatformrestores';
/** @public */
export const RESTORE_SINGULAR = 'inferenceplatformrestore';
/** @public */
export const RESTORE_SHORT_NAME = 'iprestore';

/** @public */
export type RestorePhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

/** @public */
export interface InferencePlatformRestoreSpec {
  /** The InferencePlatform (same namespace) whose Qdrant is restored. */
  platformName: string;
  /** status.backup.history[].id of the backup to restore. */
  backupId: string;
  /** Restore only these collections (default: every collection in the backup). */
  collections?: string[];
}

/** @public */
export interface RestoredCollection {
  name: string;
  /** Points in the collection once restored, as Qdrant counts them. */
  points?: number;
  /** Points when the backup was taken. */
  pointsInBackup?: number;
}

/** @public */
export interface InferencePlatformRestoreStatus {
  phase?: RestorePhase;
  message?: string;
  startTime?: string;
  completionTime?: string;
  collections?: RestoredCollection[];
  conditions?: Condition[];
  observedGeneration?: number;
}

/** @public */
export interface InferencePlatformRestore {
  apiVersion: `${typeof GROUP}/${typeof VERSION}`;
  kind: typeof RESTORE_KIND;
  metadata: ObjectMeta;
  spec: InferencePlatformRestoreSpec;
  status?: InferencePlatformRestoreStatus;
}

const restoreSchema: JSONSchemaProps = {
  type: 'object',
  description:
    "A request to recover an InferencePlatform's Qdrant collections from one of its backups: each peer's snapshot is recovered on the peer of the same ordinal (priority snapshot: the backup wins over what the collection holds now).",
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      required: ['platformName', 'backupId'],
      'x-kubernetes-validations': [
        { rule: 'self == oldSelf', message: 'spec is immutable: a restore runs once; create another InferencePlatformRestore to restore again' },
      ],
      properties: {
        platformName: { type: 'string', minLength: 1, maxLength: 63, description: 'The InferencePlatform in this namespace.' },
        backupId: { type: 'string', minLength: 1, maxLength: 128, description: "An id from the platform's status.backup.history." },
        collections: {
          type: 'array',
          maxItems: 100,
          items: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,128}$' },
          description: 'Only these collections (default: all in the backup).',
        },
      },
    },
    status: {
      type: 'object',
      properties: {
        phase: { type: 'string', enum: ['Pending', 'Running', 'Succeeded', 'Failed'] },
        message: { type: 'string' },
        startTime: { type: 'string', format: 'date-time' },
        completionTime: { type: 'string', format: 'date-time' },
        observedGeneration: { type: 'integer' },
        collections: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              points: { type: 'integer' },
              pointsInBackup: { type: 'integer' },
            },
          },
        },
        conditions: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
          items: {
            type: 'object',
            required: ['type', 'status', 'reason', 'lastTransitionTime'],
            properties: {
              type: { type: 'string' },
              status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
              reason: { type: 'string' },
              message: { type: 'string' },
              lastTransitionTime: { type: 'string', format: 'date-time' },
              observedGeneration: { type: 'integer' },
            },
          },
        },
      },
    },
  },
};

/** @public */
export const inferencePlatformRestoreCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: `${RESTORE_PLURAL}.${GROUP}`,
    labels: { 'app.kubernetes.io/part-of': 'cv-inference-platform' },
  },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: {
      kind: RESTORE_KIND,
      listKind: `${RESTORE_KIND}List`,
      plural: RESTORE_PLURAL,
      singular: RESTORE_SINGULAR,
      shortNames: [RESTORE_SHORT_NAME],
      categories: ['cv'],
    },
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        schema: { openAPIV3Schema: restoreSchema },
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Platform', type: 'string', jsonPath: '.spec.platformName' },
          { name: 'Backup', type: 'string', jsonPath: '.spec.backupId' },
          { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
          { name: 'Message', type: 'string', jsonPath: '.status.message', priority: 1 },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
      },
    ],
  },
};
