import {
  Counter,
  Gauge,
  Histogram,
  Registry,
  collectDefaultMetrics,
} from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  batchSize: Histogram<string>;
  inferenceDuration: Histogram<string>;
  modelLoadSeconds: Gauge<string>;
  modelLoads: Counter<'result'>;
  modelReady: Gauge<string>;
  queueDepth: Gauge<string>;
  imagesRejected: Counter<'reason'>;
  searchStageSeconds: Histogram<'stage'>;
  /** Where the queue-depth gauge reads its live value at scrape time. */
  setQueueDepthSource(fn: () => number): void;
}

/**
 * One registry per service instance (not prom-client's global one), so
 * several apps in one test process never clash on metric names.
 */
export function createMetrics(): Metrics {
  const registry = new Registry();
  let getQueueDepth = () => 0;
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'inference_http_requests_total',
      help: 'HTTP requests by route and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'inference_http_request_duration_seconds',
      help: 'HTTP request latency, image in to response out',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    batchSize: new Histogram({
      name: 'inference_batch_size',
      help: 'Images per model invocation',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: [registry],
    }),
    inferenceDuration: new Histogram({
      name: 'inference_session_run_seconds',
      help: 'Time inside onnxruntime session.run per batch',
      buckets: [
        0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
      ],
      registers: [registry],
    }),
    modelLoadSeconds: new Gauge({
      name: 'inference_model_load_seconds',
      help: 'Duration of the last successful model load (fetch, session creation, warm-up)',
      registers: [registry],
    }),
    modelLoads: new Counter({
      name: 'inference_model_loads_total',
      help: 'Model load attempts by result',
      labelNames: ['result'],
      registers: [registry],
    }),
    modelReady: new Gauge({
      name: 'inference_model_ready',
      help: '1 when a model is loaded and serving',
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'inference_queue_depth',
      help: 'Images waiting for a batch slot',
      registers: [registry],
      collect() {
        this.set(getQueueDepth());
      },
    }),
    imagesRejected: new Counter({
      name: 'inference_images_rejected_total',
      help: 'Requests rejected before inference, by reason',
      labelNames: ['reason'],
      registers: [registry],
    }),
    searchStageSeconds: new Histogram({
      name: 'inference_search_stage_seconds',
      help: 'Search latency by stage: decode (image to pixels), embed (pixels to vector: batch wait and model run), vector_store (the query), total (request read to answer)',
      labelNames: ['stage'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    setQueueDepthSource(fn) {
      getQueueDepth = fn;
    },
  };
}
