import { CONVERSION_WEBHOOK_SERVICE } from '@cv-platform/inference-platform-api';

/**
 * The URL the API server calls, with `{port}` filled in. A base URL without a
 * path (`https://host:port`) gets the path the webhook serves: the API server
 * posts to exactly the URL it is given, and the webhook answers 404 to any
 * other path, so a missing path would fail every conversion.
 */
export function conversionWebhookUrl(configured: string, port: number | undefined): string {
  const url = configured.replace('{port}', String(port));
  return /^https?:\/\/[^/?#]+\/?$/.test(url) ? url.replace(/\/?$/, CONVERSION_WEBHOOK_SERVICE.path) : url;
}
