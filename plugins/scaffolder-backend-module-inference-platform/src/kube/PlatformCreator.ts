import { isDeepStrictEqual } from 'node:util';
import { ConflictError } from '@backstage/errors';
import {
  API_VERSION_V1BETA1,
  InferencePlatformV1beta1,
  ObjectMeta,
  OWNER_ANNOTATION,
  PLURAL,
} from '@cv-platform/inference-platform-api';
import { KubeApiError, KubeClient, resourcePath } from '@cv-platform/operator';
import { SCAFFOLDER_TASK_ANNOTATION } from '../actions/buildPlatform';
import { toUserFacingError } from './toUserFacingError';

export const FIELD_MANAGER = 'backstage-scaffolder';

/**
 * Platforms are read and written at cv.platform.tech/v1beta1, the storage
 * version: other versions need the conversion webhook, which not every
 * cluster runs.
 */
const platformsPath = (namespace: string, name?: string) =>
  resourcePath(
    { apiVersion: API_VERSION_V1BETA1, plural: PLURAL },
    namespace,
    name,
  );

const describePlatform = (p: InferencePlatformV1beta1) =>
  `InferencePlatform ${p.metadata.namespace}/${p.metadata.name}`;

const isAlreadyExists = (e: unknown) =>
  e instanceof KubeApiError && e.statusCode === 409;

export interface ValidationResult {
  /** The platform as the API server would store it, defaults applied. */
  defaulted: InferencePlatformV1beta1;
  /** Whether a platform with this name already exists. */
  exists: boolean;
}

export interface CreateResult {
  platform: InferencePlatformV1beta1;
  /** False when an earlier run of the same request had already created it. */
  created: boolean;
}

/**
 * Creates InferencePlatforms the way the scaffolder needs: validated by the
 * API server first (a server-side dry run runs the CRD schema and CEL rules,
 * so nothing is created from bad input), and idempotently, so that re-running
 * a task finds its platform instead of failing or duplicating it.
 */
export class PlatformCreator {
  constructor(private readonly client: KubeClient) {}

  /** Server-side dry run of a create; throws InputError with the server's message on rejection. */
  async validate(
    platform: InferencePlatformV1beta1,
  ): Promise<ValidationResult> {
    try {
      return { defaulted: await this.post(platform, true), exists: false };
    } catch (e) {
      if (!isAlreadyExists(e)) {
        throw toUserFacingError(e, describePlatform(platform));
      }
    }
    // The name is taken, which says nothing about the spec: validate that
    // under a generated name (dry run, so nothing is kept).
    const { name, ...metadata } = platform.metadata;
    try {
      const defaulted = await this.post(
        {
          ...platform,
          metadata: { ...metadata, generateName: `${name}-` } as ObjectMeta,
        },
        true,
      );
      return {
        defaulted: { ...defaulted, metadata: { ...defaulted.metadata, name } },
        exists: true,
      };
    } catch (e) {
      throw toUserFacingError(e, describePlatform(platform));
    }
  }

  /**
   * Creates the platform unless this request already did. An existing
   * platform counts as this request's when the same scaffolder task created it
   * (a retried task), or when it has the same owner and the same spec (the
   * same form submitted again); any other existing platform is a conflict.
   */
  async createOnce(
    platform: InferencePlatformV1beta1,
    taskId: string,
  ): Promise<CreateResult> {
    const { defaulted, exists } = await this.validate(platform);
    if (!exists) {
      try {
        return { platform: await this.post(platform, false), created: true };
      } catch (e) {
        // Lost a race with a concurrent create: judge the winner below.
        if (!isAlreadyExists(e)) {
          throw toUserFacingError(e, describePlatform(platform));
        }
      }
    }
    const existing = await this.get(platform);
    if (!existing) {
      throw new ConflictError(
        `${describePlatform(
          platform,
        )} was deleted while being created; retry the task`,
      );
    }
    if (existing.metadata.deletionTimestamp) {
      throw new ConflictError(
        `${describePlatform(
          platform,
        )} is being deleted; wait until it is gone, or choose another name`,
      );
    }
    const annotations = existing.metadata.annotations ?? {};
    const sameTask = annotations[SCAFFOLDER_TASK_ANNOTATION] === taskId;
    const sameRequest =
      annotations[OWNER_ANNOTATION] ===
        platform.metadata.annotations?.[OWNER_ANNOTATION] &&
      isDeepStrictEqual(existing.spec, defaulted.spec);
    if (sameTask || sameRequest) return { platform: existing, created: false };
    const owner = annotations[OWNER_ANNOTATION];
    throw new ConflictError(
      `${describePlatform(platform)} already exists${
        owner ? ` (owned by ${owner})` : ''
      } with a different spec; choose another name`,
    );
  }

  async get(
    ref: Pick<InferencePlatformV1beta1, 'metadata'>,
  ): Promise<InferencePlatformV1beta1 | undefined> {
    try {
      return await this.client.get<InferencePlatformV1beta1>(
        platformsPath(ref.metadata.namespace!, ref.metadata.name),
      );
    } catch (e) {
      if (e instanceof KubeApiError && e.statusCode === 404) return undefined;
      throw e;
    }
  }

  private post(
    platform: InferencePlatformV1beta1,
    dryRun: boolean,
  ): Promise<InferencePlatformV1beta1> {
    // Strict field validation: a misspelled field is an error, not silently pruned.
    const query = new URLSearchParams({
      fieldManager: FIELD_MANAGER,
      fieldValidation: 'Strict',
      ...(dryRun ? { dryRun: 'All' } : {}),
    });
    return this.client.request<InferencePlatformV1beta1>(
      'POST',
      `${platformsPath(platform.metadata.namespace!)}?${query}`,
      platform,
    );
  }
}
