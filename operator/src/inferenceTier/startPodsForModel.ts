import { modelLoadFailure } from '../status/podProblems';

/**
 * On the inference pod template (hot reload): the model URL its pods were last started for.
 *
 * @public
 */
export const ANNOTATION_STARTED_FOR_MODEL = 'cv.platform.tech/started-for-model';

/**
 * Hot reload needs a server that runs. When none is ready and the loaders
 * gave up on (or fail at) the model the pods were started for, a new model
 * would otherwise reach them only when a loader runs again: the pods are
 * replaced instead (the template names the model they start for; a new
 * Deployment starts with the current one, so a first failure replaces
 * nothing).
 *
 * @public
 */
export function startPodsForModel(deployment: any, live: any, modelUrl: string, pods: any[]) {
  let startedFor: string | undefined = live ? live.spec?.template?.metadata?.annotations?.[ANNOTATION_STARTED_FOR_MODEL] : modelUrl;
  if (live && !(live.status?.readyReplicas > 0) && startedFor !== modelUrl && modelLoadFailure(pods, modelUrl, true)) startedFor = modelUrl;
  if (startedFor) {
    const t = deployment.spec.template.metadata;
    t.annotations = { ...(t.annotations ?? {}), [ANNOTATION_STARTED_FOR_MODEL]: startedFor };
  }
}
