import type { ConversionWebhookState } from '../webhook/ConversionWebhook';

/**
 * The standalone operator's /healthz (alive: always 200) and /readyz (503
 * while the conversion webhook this process serves is not serving: the API
 * server's v1alpha1 requests depend on it), both with the webhook's state.
 */
export function operatorHealth(
  path: '/healthz' | '/readyz',
  webhook: ConversionWebhookState | undefined,
): { status: number; body: { status: 'ok' | 'unready'; conversionWebhook?: ConversionWebhookState } } {
  const ready = !webhook || webhook.serving;
  const status = path === '/readyz' && !ready ? 503 : 200;
  return { status, body: { status: status === 200 ? 'ok' : 'unready', ...(webhook ? { conversionWebhook: webhook } : {}) } };
}
