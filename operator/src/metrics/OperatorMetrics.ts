import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * controller-runtime's metric names, so existing dashboards work.
 *
 * @public
 */
export class OperatorMetrics {
  readonly registry = new Registry();
  readonly reconcileTotal = new Counter({
    name: 'controller_runtime_reconcile_total',
    help: 'Total number of reconciliations per controller and result',
    labelNames: ['controller', 'result'],
    registers: [this.registry],
  });
  readonly reconcileErrors = new Counter({
    name: 'controller_runtime_reconcile_errors_total',
    help: 'Total number of reconciliation errors per controller',
    labelNames: ['controller'],
    registers: [this.registry],
  });
  readonly reconcileDuration = new Histogram({
    name: 'controller_runtime_reconcile_time_seconds',
    help: 'Length of time per reconciliation per controller',
    labelNames: ['controller'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly queueDepth = new Gauge({
    name: 'workqueue_depth',
    help: 'Current depth of the work queue',
    labelNames: ['name'],
    registers: [this.registry],
  });
  readonly workDuration = new Histogram({
    name: 'workqueue_work_duration_seconds',
    help: 'How long processing an item from the work queue takes',
    labelNames: ['name'],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [this.registry],
  });
  /** Every API request (reads, lists, watches, writes), as client-go's rest client counts them. */
  readonly requests = new Counter({
    name: 'rest_client_requests_total',
    help: 'Kubernetes API requests issued by the operator (lists, watches, reads and writes)',
    labelNames: ['method'],
    registers: [this.registry],
  });
  readonly writes = new Counter({
    name: 'inference_platform_operator_api_writes_total',
    help: 'Kubernetes API write requests issued by reconciles',
    labelNames: ['kind', 'verb'],
    registers: [this.registry],
  });
  /** LISTs per informer: after the first, each one is a relist (410 Gone or an error). */
  readonly informerLists = new Counter({
    name: 'informer_list_requests_total',
    help: 'LIST requests issued by informers, the initial list included',
    labelNames: ['resource', 'namespace'],
    registers: [this.registry],
  });
  readonly informerWatchEnds = new Counter({
    name: 'informer_watch_ends_total',
    help: 'Watch streams that ended, by reason (timeout: the server ended it; transport: the connection dropped; gone: 410; error)',
    labelNames: ['resource', 'reason'],
    registers: [this.registry],
  });
}
