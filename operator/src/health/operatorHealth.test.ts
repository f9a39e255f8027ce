import { operatorHealth } from './operatorHealth';

describe('operatorHealth', () => {
  const serving = { serving: true, crdConfigured: true, conversions: 3, failures: 0, address: '0.0.0.0:9443', certificateNotAfter: '2027-03-05T00:00:00.000Z' };

  it('is ready with a serving webhook, and shows its state', () => {
    expect(operatorHealth('/readyz', serving)).toEqual({ status: 200, body: { status: 'ok', conversionWebhook: serving } });
  });

  it('is not ready while the webhook does not serve, yet alive', () => {
    const down = { ...serving, serving: false, lastError: 'listen EADDRINUSE' };
    expect(operatorHealth('/readyz', down)).toEqual({ status: 503, body: { status: 'unready', conversionWebhook: down } });
    expect(operatorHealth('/healthz', down).status).toBe(200);
  });

  it('without a webhook (not served by this process) is ready', () => {
    expect(operatorHealth('/readyz', undefined)).toEqual({ status: 200, body: { status: 'ok' } });
  });
});
