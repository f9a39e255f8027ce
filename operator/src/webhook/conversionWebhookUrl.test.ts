import { conversionWebhookUrl } from './conversionWebhookUrl';

describe('conversionWebhookUrl', () => {
  it('adds the path the webhook serves to a base URL, keeps a given path, fills in the port', () => {
    expect(conversionWebhookUrl('https://127.0.0.1:9443', 9443)).toBe('https://127.0.0.1:9443/convert');
    expect(conversionWebhookUrl('https://127.0.0.1:9443/', 9443)).toBe('https://127.0.0.1:9443/convert');
    expect(conversionWebhookUrl('https://127.0.0.1:{port}', 40123)).toBe('https://127.0.0.1:40123/convert');
    expect(conversionWebhookUrl('https://[::1]:{port}', 1)).toBe('https://[::1]:1/convert');
    expect(conversionWebhookUrl('https://host:9443/convert', 9443)).toBe('https://host:9443/convert');
    expect(conversionWebhookUrl('https://host:9443/prefix/convert', 9443)).toBe('https://host:9443/prefix/convert');
  });
});
