import type { DefaultedSpec, InferencePlatform, InferencePlatformStatus, QdrantClusterInfo } from '@cv-platform/inference-platform-api';
import type { PendingEvent } from '../events/PendingEvent';
import { InferenceServerStates } from '../inference/InferenceServerStates';
import { ModelHotReload } from '../inference/ModelHotReload';
import { CanaryMetrics } from '../inference/TrackMetrics';
import { canarySpec, hotReload, inferenceConfigMap, inferenceDeployment, inferenceService, modelPersistentVolumeClaim } from '../reconcile/inferenceChildren';
import { isTrack, LABEL_COMPONENT, names } from '../reconcile/labels';
import { PODS_BY_PLATFORM, ReconcilerOptions } from '../reconcile/ReconcilerOptions';
import { inferenceHorizontalPodAutoscaler, inferenceScaledObject, inferenceServiceMonitor } from '../reconcile/scalingChildren';
import { splitReplicas } from '../reconcile/splitReplicas';
import type { Child, TierPlan } from '../reconcile/TierPlan';
import { Resources } from '../runtime/SharedInformers';
import { isPodReady } from '../status/isPodReady';
import type { ObservedChildren } from '../status/ObservedChildren';
import { warmupDeadlineInMs } from '../status/podProblems';
import { restartOnNewLeader } from './restartOnNewLeader';
import { startPodsForModel } from './startPodsForModel';

/** What the inference tier wants from a pass. */
export interface InferencePlan extends TierPlan {
  /** The spec the status counts the stable track's readiness against (its share of the servers). */
  statusSpec: DefaultedSpec;
  /**
   * Once the children are applied (`applied` says whether one was): starts
   * the next hot reload and returns the inference part of the status input.
   */
  settle: (applied: (child: Child) => boolean) => Omit<ObservedChildren, 'qdrantPods' | 'statefulSet'>;
}

/**
 * The inference tier of a platform: the stable (and canary) Deployments,
 * their ConfigMaps and Services, the model volume, autoscalers and monitors;
 * a new model reaching running servers by hot reload; what the servers say
 * about themselves.
 */
export class InferenceTier {
  private readonly servers?: InferenceServerStates;
  private readonly modelReload?: ModelHotReload;
  private readonly canaryMetrics?: CanaryMetrics;

  constructor(private readonly o: ReconcilerOptions) {
    if (o.readServerState) {
      const servers = new InferenceServerStates({ read: o.readServerState, ttlMs: o.clusterInfoTtlMs ?? 60_000, changed: key => o.requeue?.(key) });
      this.servers = servers;
      if (o.reloadServerModel) {
        this.modelReload = new ModelHotReload({
          reload: o.reloadServerModel,
          invalidate: (key, pod) => servers.invalidate(key, pod),
          requeue: key => o.requeue?.(key),
          logger: o.logger,
        });
      }
    }
    if (o.readServerMetrics) {
      this.canaryMetrics = new CanaryMetrics({ read: o.readServerMetrics, intervalMs: o.canaryMetricsIntervalMs ?? 30_000, changed: key => o.requeue?.(key) });
    }
  }

  forget(key: string): void {
    this.servers?.forget(key);
    this.modelReload?.forget(key);
    this.canaryMetrics?.forget(key);
  }

  /** Asks a settled platform's servers about themselves again (only a changed answer queues a pass). */
  lookAgain(key: string, spec: DefaultedSpec): void {
    const pods = this.o.caches.pods.byIndex(PODS_BY_PLATFORM, key).filter(o => o.metadata.labels?.[LABEL_COMPONENT] === 'inference');
    this.servers?.of(key, pods, spec.inference.port);
  }

  /** `qdrantReady`: every Qdrant peer is ready, which the servers need before they are first created. */
  plan(key: string, p: InferencePlatform, spec: DefaultedSpec, pods: any[], qdrantReady: boolean, clusterInfo: QdrantClusterInfo | undefined): InferencePlan {
    const { caches } = this.o;
    const namespace = p.metadata.namespace!;
    const inferencePods = pods.filter(o => o.metadata.labels?.[LABEL_COMPONENT] === 'inference');
    const stablePods = inferencePods.filter(o => isTrack(o, 'stable'));
    const canaryPods = inferencePods.filter(o => isTrack(o, 'canary'));
    const canary = canarySpec(spec);
    const canaryReady = canaryPods.filter(isPodReady).length;
    const split = splitReplicas(spec.inference.replicas, spec.inference.canary?.weight ?? 0, canaryReady);
    const deployedBefore = caches.deployments.get(namespace, names.inference(p));
    const events: PendingEvent[] = [];

    const children: Child[] = [{ obj: inferenceConfigMap(p, spec), ref: Resources.configMaps, cache: caches.configMaps }];
    const pvc = modelPersistentVolumeClaim(p, spec);
    if (pvc) children.push({ obj: pvc, ref: Resources.pvcs, cache: caches.pvcs });
    // Inference servers need Qdrant: they are first created once every peer is
    // Ready; after that the Deployment stays (a Qdrant hiccup degrades, it does not tear down).
    let stable: Child | undefined;
    if (qdrantReady || deployedBefore) {
      const deployment = inferenceDeployment(p, spec, 'stable', split.stable);
      if (spec.qdrant.onLeaderChange === 'RestartInference') restartOnNewLeader(deployment, deployedBefore, clusterInfo);
      if (hotReload(spec)) startPodsForModel(deployment, deployedBefore, spec.inference.modelUrl, stablePods);
      stable = { obj: deployment, ref: Resources.deployments, cache: caches.deployments };
      children.push(stable);
      if (canary) children.push({ obj: inferenceDeployment(p, canary, 'canary', split.canary), ref: Resources.deployments, cache: caches.deployments });
    }
    children.push({ obj: inferenceService(p), ref: Resources.services, cache: caches.services });
    if (canary) {
      children.push(
        { obj: inferenceConfigMap(p, canary, 'canary'), ref: Resources.configMaps, cache: caches.configMaps },
        { obj: inferenceService(p, 'stable'), ref: Resources.services, cache: caches.services },
        { obj: inferenceService(p, 'canary'), ref: Resources.services, cache: caches.services },
      );
    }
    // Autoscalers scale the platform (its scale subresource), monitors scrape both tiers.
    const hpa = inferenceHorizontalPodAutoscaler(p, spec);
    if (hpa) children.push({ obj: hpa, ref: Resources.hpas, cache: caches.hpas });
    const scaledObject = inferenceScaledObject(p, spec);
    if (scaledObject && caches.scaledObjects) children.push({ obj: scaledObject, ref: Resources.scaledObjects, cache: caches.scaledObjects });
    if (caches.serviceMonitors) children.push({ obj: inferenceServiceMonitor(p), ref: Resources.serviceMonitors, cache: caches.serviceMonitors });

    const removals: TierPlan['removals'] = [];
    if (!pvc) removals.push({ cache: caches.pvcs, ref: Resources.pvcs, name: names.modelPvc(p) });
    if (!hpa) removals.push({ cache: caches.hpas, ref: Resources.hpas, name: names.inference(p) });
    if (!scaledObject && caches.scaledObjects) removals.push({ cache: caches.scaledObjects, ref: Resources.scaledObjects, name: names.inference(p) });
    // A canary removed (promoted or rolled back): its servers go at once, the stable ones fill the platform's replicas.
    if (!canary) {
      this.canaryMetrics?.forget(key);
      removals.push(
        { cache: caches.deployments, ref: Resources.deployments, name: names.inferenceCanary(p) },
        { cache: caches.configMaps, ref: Resources.configMaps, name: names.inferenceCanaryConfig(p) },
        { cache: caches.services, ref: Resources.services, name: names.inferenceCanary(p) },
        { cache: caches.services, ref: Resources.services, name: names.inferenceStable(p) },
      );
    }
    const nowMs = this.o.now?.().getTime() ?? Date.now();
    return {
      children,
      removals,
      events,
      // A server warming up is said only once it is late, and a canary's metrics are read every interval: nothing else brings those passes.
      waitMs: Math.min(
        warmupDeadlineInMs(inferencePods, spec.inference.modelSource.warmupTimeoutSeconds, nowMs) ?? Infinity,
        canary && this.canaryMetrics ? this.canaryMetrics.intervalMs : Infinity,
      ),
      statusSpec: canary ? { ...spec, inference: { ...spec.inference, replicas: split.stable } } : spec,
      settle: applied => {
        // A new model reaches running servers by hot reload once the Deployment has rolled out.
        const inferenceServers = this.servers?.of(key, inferencePods, spec.inference.port);
        const live = caches.deployments.get(namespace, names.inference(p));
        const rolledOut =
          !!live &&
          (live.status?.observedGeneration ?? 0) >= (live.metadata?.generation ?? 0) &&
          (live.status?.updatedReplicas ?? 0) === (live.status?.replicas ?? 0);
        const modelReloadFailures =
          this.modelReload && inferenceServers && hotReload(spec) && rolledOut
            ? this.modelReload.step(
                key,
                p,
                spec.inference.modelUrl,
                stablePods.filter(isPodReady),
                inferenceServers,
                spec.inference.port,
                (spec.inference.modelSource.pullTimeoutSeconds + 120) * 1000,
                events,
              )
            : undefined;
        return {
          // Created in this very pass: rolling out from zero, though the cache has not seen it yet.
          deployment: caches.deployments.get(namespace, names.inference(p)) ?? (stable && applied(stable) ? { ...stable.obj, status: {} } : undefined),
          inferencePods: stablePods,
          canary: canary
            ? {
                deployment: caches.deployments.get(namespace, names.inferenceCanary(p)),
                pods: canaryPods,
                ready: canaryReady,
                replicas: split.canary,
                platformReplicas: spec.inference.replicas,
                stableReady: stablePods.filter(isPodReady).length,
                metrics: this.canaryMetrics?.of(key, { stable: stablePods, canary: canaryPods }, spec.inference.port),
              }
            : undefined,
          inferenceServers,
          modelReloadFailures,
          autoscalingUnavailable:
            scaledObject && !caches.scaledObjects
              ? `spec.inference.autoscaling.metric ${spec.inference.autoscaling!.metric} needs KEDA: its ScaledObject CRD (keda.sh/v1alpha1) was not installed when the operator started`
              : undefined,
        };
      },
    };
  }

  /** A canary that started serving or failed is news; its progress in between is in the status. */
  static canaryEvents(p: InferencePlatform, status: InferencePlatformStatus): PendingEvent[] {
    const now = status.canary;
    if (!now || now.state === p.status?.canary?.state) return [];
    if (now.state === 'Failed') return [['Warning', 'CanaryFailed', `Canary ${now.modelUrl}: ${now.message}`]];
    if (now.state === 'Serving') return [['Normal', 'CanaryServing', `Canary ${now.modelUrl}: ${now.message}`]];
    return [];
  }
}
