import { collectDefaultMetrics, Registry } from 'prom-client';

let shared: Registry | undefined;

/**
 * This process's heap, RSS and event-loop lag in Prometheus form. One
 * registry per process: the default collectors watch the process, not a
 * router, and a second set would only double the event-loop sampling.
 */
export function processMetrics(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
  }
  return shared;
}
