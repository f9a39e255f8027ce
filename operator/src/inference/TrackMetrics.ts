import type { CanaryStatus, TrackMetrics as Metrics } from '@cv-platform/inference-platform-api';
import { KubeClient } from '../kube/KubeClient';
import { isPodReady } from '../status/isPodReady';
import { containerInstance } from './InferenceServerStates';

/**
 * Asks one pod's server for its Prometheus metrics (`GET /metrics`, text).
 *
 * @public
 */
export type ReadServerMetrics = (pod: { metadata: { name: string; namespace: string }; status?: { podIP?: string } }, port: number) => Promise<string>;

const TIMEOUT_MS = 3000;

export const directServerMetrics: ReadServerMetrics = async (pod, port) => {
  if (!pod.status?.podIP) throw new Error('the pod has no IP yet');
  const res = await fetch(`http://${pod.status.podIP}:${port}/metrics`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
  return res.text();
};

export function apiServerProxyServerMetrics(client: KubeClient): ReadServerMetrics {
  return async (pod, port) =>
    String(await client.request('GET', `/api/v1/namespaces/${pod.metadata.namespace}/pods/http:${pod.metadata.name}:${port}/proxy/metrics`, undefined, undefined, AbortSignal.timeout(TIMEOUT_MS)));
}

/** One server's request counters: what its clients asked (probes, scrapes and reloads are not traffic). */
export interface RequestCounters {
  requests: number;
  errors: number;
  /** Cumulative latency histogram: upper bound in seconds -> count. */
  buckets: Map<number, number>;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

const isTraffic = (route: string | undefined) => !!route && route.startsWith('/v1/') && route !== '/v1/model/reload';

/** The request counters in a server's metrics text (inference_http_requests_total, inference_http_request_duration_seconds). */
export function parseRequestCounters(text: string): RequestCounters {
  const out: RequestCounters = { requests: 0, errors: 0, buckets: new Map() };
  for (const line of text.split('\n')) {
    const m = SAMPLE.exec(line);
    if (!m) continue;
    const [, name, rawLabels = '', rawValue] = m;
    if (name !== 'inference_http_requests_total' && name !== 'inference_http_request_duration_seconds_bucket') continue;
    const labels: Record<string, string> = {};
    for (const l of rawLabels.matchAll(LABEL)) labels[l[1]] = l[2];
    if (!isTraffic(labels.route)) continue;
    const value = Number(rawValue);
    if (!Number.isFinite(value)) continue;
    if (name === 'inference_http_requests_total') {
      out.requests += value;
      if (labels.status?.startsWith('5')) out.errors += value;
    } else {
      const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
      out.buckets.set(le, (out.buckets.get(le) ?? 0) + value);
    }
  }
  return out;
}

/** The q-quantile of a cumulative histogram, interpolated within its bucket as Prometheus' histogram_quantile does. */
export function histogramQuantile(q: number, buckets: Map<number, number>): number | undefined {
  const sorted = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (!total) return undefined;
  const rank = q * total;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [le, count] of sorted) {
    if (count >= rank) {
      // Past the last finite bound: the best known is that bound.
      if (le === Infinity) return lowerBound;
      return lowerBound + ((le - lowerBound) * (rank - lowerCount)) / Math.max(count - lowerCount, 1e-12);
    }
    lowerBound = le;
    lowerCount = count;
  }
  return lowerBound;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

interface Reading {
  instance: string;
  counters: RequestCounters;
}

type Track = 'stable' | 'canary';

/**
 * Request rate, error rate and p95 latency of each model version while a
 * canary runs, from the servers' own counters: every ready server is read
 * every `intervalMs`, and a window is the difference between two readings of
 * the same container (a restarted one starts again). Reads happen in the
 * background; a new window queues the platform for the pass that writes it.
 */
export class CanaryMetrics {
  private readonly last = new Map<string, { at: number; pods: Map<string, Reading> }>();
  private readonly windows = new Map<string, NonNullable<CanaryStatus['metrics']>>();
  private readonly inFlight = new Set<string>();

  constructor(
    private readonly o: { read: ReadServerMetrics; intervalMs: number; changed: (platformKey: string) => void; now?: () => number },
  ) {}

  get intervalMs(): number {
    return this.o.intervalMs;
  }

  forget(platformKey: string): void {
    this.last.delete(platformKey);
    this.windows.delete(platformKey);
  }

  /** The last window's metrics, reading the servers again when it is due. */
  of(platformKey: string, pods: Record<Track, any[]>, port: number): CanaryStatus['metrics'] | undefined {
    const now = this.o.now?.() ?? Date.now();
    const last = this.last.get(platformKey);
    if ((!last || now - last.at >= this.o.intervalMs) && !this.inFlight.has(platformKey)) {
      this.inFlight.add(platformKey);
      void this.read(platformKey, pods, port, now).finally(() => this.inFlight.delete(platformKey));
    }
    return this.windows.get(platformKey);
  }

  private async read(platformKey: string, pods: Record<Track, any[]>, port: number, at: number) {
    const tracks: Track[] = ['stable', 'canary'];
    const readings = new Map<string, Reading & { track: Track }>();
    await Promise.all(
      tracks.flatMap(track =>
        pods[track].filter(isPodReady).map(async pod => {
          try {
            const counters = parseRequestCounters(await this.o.read(pod, port));
            readings.set(pod.metadata.name, { track, instance: containerInstance(pod), counters });
          } catch {
            // A server that does not answer adds nothing to this window.
          }
        }),
      ),
    );
    const previous = this.last.get(platformKey);
    this.last.set(platformKey, { at, pods: readings });
    if (!previous) return;
    const windowSeconds = (at - previous.at) / 1000;
    if (windowSeconds <= 0) return;
    const out: NonNullable<CanaryStatus['metrics']> = { windowSeconds: Math.round(windowSeconds), observedAt: new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z') };
    for (const track of tracks) {
      const sum: RequestCounters = { requests: 0, errors: 0, buckets: new Map() };
      let seen = false;
      for (const [name, now] of readings) {
        const before = previous.pods.get(name);
        if (now.track !== track || !before || before.instance !== now.instance || now.counters.requests < before.counters.requests) continue;
        seen = true;
        sum.requests += now.counters.requests - before.counters.requests;
        sum.errors += now.counters.errors - before.counters.errors;
        for (const [le, n] of now.counters.buckets) sum.buckets.set(le, (sum.buckets.get(le) ?? 0) + n - (before.counters.buckets.get(le) ?? 0));
      }
      if (!seen) continue;
      const p95 = histogramQuantile(0.95, sum.buckets);
      const metrics: Metrics = {
        requestsPerSecond: round(sum.requests / windowSeconds),
        errorRate: sum.requests ? round(sum.errors / sum.requests, 4) : 0,
        ...(p95 !== undefined ? { p95LatencyMs: round(p95 * 1000) } : {}),
      };
      out[track] = metrics;
    }
    this.windows.set(platformKey, out);
    this.o.changed(platformKey);
  }
}

