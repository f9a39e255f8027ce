import { KubeApiError, KubeClient } from '../kube/KubeClient';
import { isPodReady } from '../status/isPodReady';

/**
 * What one inference server says about itself (its `GET /readyz` answer).
 *
 * @public
 */
export interface InferenceServerState {
  /** The model version it serves. */
  modelVersion?: string;
  /** The URL of the model it serves (what spec.inference.modelUrl names). */
  modelUrl?: string;
  /** Where onnxruntime runs the model. */
  executionProvider?: 'cpu' | 'cuda';
  /** Why CUDA was asked for and the CPU runs the model instead. */
  fallbackReason?: string;
}

/**
 * Asks one pod's server for its `/readyz` JSON; undefined when it gives none.
 *
 * @public
 */
export type ReadServerState = (pod: { metadata: { name: string; namespace: string }; status?: { podIP?: string } }, port: number) => Promise<unknown>;

const TIMEOUT_MS = 3000;

/** Straight to the pod's address: an operator inside the cluster network. */
export const directServerState: ReadServerState = async (pod, port) => {
  if (!pod.status?.podIP) return undefined;
  const res = await fetch(`http://${pod.status.podIP}:${port}/readyz`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  return res.json();
};

/** Through the API server's pod proxy (needs `get` on `pods/proxy`): an operator outside the cluster. */
export function apiServerProxyServerState(client: KubeClient): ReadServerState {
  return async (pod, port) => {
    try {
      return await client.request('GET', `/api/v1/namespaces/${pod.metadata.namespace}/pods/http:${pod.metadata.name}:${port}/proxy/readyz`, undefined, undefined, AbortSignal.timeout(TIMEOUT_MS));
    } catch (e) {
      // A server that is not ready answers 503 with the same JSON.
      if (e instanceof KubeApiError && typeof e.body === 'object') return e.body;
      throw e;
    }
  };
}

/**
 * Asks one pod's server to load a model (`POST /v1/model/reload`); resolves with its answer, rejects with its reason.
 *
 * @public
 */
export type ReloadServerModel = (
  pod: { metadata: { name: string; namespace: string }; status?: { podIP?: string } },
  port: number,
  modelUrl: string,
  timeoutMs: number,
) => Promise<unknown>;

/** A server's refusal to load a model: 409 when it refuses it for good (e.g. another embedding dimension). */
export class ModelReloadError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const reasonOf = (body: any, status: number) => new ModelReloadError(status, body?.error?.message ?? `HTTP ${status}`);

export const directModelReload: ReloadServerModel = async (pod, port, modelUrl, timeoutMs) => {
  if (!pod.status?.podIP) throw new Error('the pod has no IP yet');
  const res = await fetch(`http://${pod.status.podIP}:${port}/v1/model/reload`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ modelUrl }),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body: any = await res.json().catch(() => undefined);
  if (!res.ok) throw reasonOf(body, res.status);
  return body;
};

/** Through the API server's pod proxy (needs `create` on `pods/proxy`). */
export function apiServerProxyModelReload(client: KubeClient): ReloadServerModel {
  return async (pod, port, modelUrl, timeoutMs) => {
    try {
      return await client.request(
        'POST',
        `/api/v1/namespaces/${pod.metadata.namespace}/pods/http:${pod.metadata.name}:${port}/proxy/v1/model/reload`,
        { modelUrl },
        'application/json',
        AbortSignal.timeout(timeoutMs),
      );
    } catch (e) {
      if (e instanceof KubeApiError && typeof e.body === 'object') throw reasonOf(e.body, e.statusCode);
      throw e;
    }
  };
}

function parse(answer: any): InferenceServerState | undefined {
  const model = answer?.model;
  if (!model || typeof model !== 'object') return undefined;
  const state: InferenceServerState = {};
  if (typeof model.version === 'string') state.modelVersion = model.version;
  if (typeof model.url === 'string') state.modelUrl = model.url;
  if (model.executionProvider === 'cpu' || model.executionProvider === 'cuda') state.executionProvider = model.executionProvider;
  if (typeof model.fallbackReason === 'string') state.fallbackReason = model.fallbackReason;
  return state;
}

/** Which run of a pod's containers: its uid and restart count (a restarted server has forgotten what it was told). */
export function containerInstance(pod: any): string {
  const restarts = (pod.status?.containerStatuses ?? []).reduce((n: number, c: any) => n + (c.restartCount ?? 0), 0);
  return `${pod.metadata.uid}/${restarts}`;
}

interface Entry {
  /** The container instance it describes: pod uid and restart count. */
  instance: string;
  at: number;
  state?: InferenceServerState;
}

/**
 * What each ready inference server says about itself, as the platform's
 * status needs it (the model on the CPU although GPUs were asked for).
 * Servers are asked in the background — a new or restarted container at
 * once, others after the TTL — so a slow server never holds up a reconcile;
 * a changed answer queues the platform for another pass.
 */
export class InferenceServerStates {
  private readonly known = new Map<string, Map<string, Entry>>();
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly o: { read: ReadServerState; ttlMs: number; changed: (platformKey: string) => void; now?: () => number },
  ) {}

  /** The last answers of the platform's ready servers, by pod name (servers that gave none are left out). */
  of(platformKey: string, pods: any[], port: number): Record<string, InferenceServerState> {
    const now = this.o.now?.() ?? Date.now();
    const previous = this.known.get(platformKey) ?? new Map<string, Entry>();
    const current = new Map<string, Entry>();
    const out: Record<string, InferenceServerState> = {};
    for (const pod of pods) {
      if (!isPodReady(pod)) continue;
      const instance = containerInstance(pod);
      const entry = previous.get(pod.metadata.name);
      const fresh = entry?.instance === instance ? entry : undefined;
      if (fresh) current.set(pod.metadata.name, fresh);
      if (fresh?.state) out[pod.metadata.name] = fresh.state;
      if (!fresh || now - fresh.at >= this.o.ttlMs) this.ask(platformKey, pod, port, instance);
    }
    if (current.size) this.known.set(platformKey, current);
    else this.known.delete(platformKey);
    return out;
  }

  forget(platformKey: string): void {
    this.known.delete(platformKey);
  }

  /** Asks this server again on the next look (it was told to change, e.g. to load another model). */
  invalidate(platformKey: string, podName: string): void {
    const entry = this.known.get(platformKey)?.get(podName);
    if (entry) entry.at = -Infinity;
  }

  private ask(platformKey: string, pod: any, port: number, instance: string) {
    const id = `${platformKey}/${pod.metadata.name}`;
    if (this.inFlight.has(id)) return;
    this.inFlight.add(id);
    this.o
      .read(pod, port)
      .then(parse, () => undefined)
      .then(state => {
        const entries = this.known.get(platformKey) ?? new Map<string, Entry>();
        const before = entries.get(pod.metadata.name);
        entries.set(pod.metadata.name, { instance, at: this.o.now?.() ?? Date.now(), state });
        this.known.set(platformKey, entries);
        if (JSON.stringify(before?.instance === instance ? before.state : undefined) !== JSON.stringify(state)) this.o.changed(platformKey);
      })
      .finally(() => this.inFlight.delete(id));
  }
}
