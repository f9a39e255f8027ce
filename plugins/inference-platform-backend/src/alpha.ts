/**
 * Parts built on Backstage services that are themselves alpha.
 *
 * @packageDocumentation
 */
export { inferencePlatformModuleOperatorMetrics } from './metrics/operatorMetricsModule';
