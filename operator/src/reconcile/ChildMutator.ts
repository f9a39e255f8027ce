import type { InferencePlatform } from '@cv-platform/inference-platform-api';

/**
 * Changes a child object in place before the operator applies it: labels
 * and annotations a cluster's policies ask for, imagePullSecrets, a
 * priorityClassName. It runs on every pass, on the object as the operator
 * builds it (the platform in the operator's layout), so it must be
 * deterministic: the same input, the same change. What it sets is owned by
 * the operator's field manager like the rest of the child.
 *
 * @public
 */
export type ChildMutator = (child: { apiVersion: string; kind: string; metadata: any; spec?: any; [k: string]: any }, platform: InferencePlatform) => void;
