import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONVERSION_WEBHOOK_SERVICE, GROUP, PLURAL } from '@cv-platform/inference-platform-api';
import { KubeApiError, KubeClient } from '../kube/KubeClient';
import { Logger, noopLogger } from '../logger';
import { BadReviewError, reviewConversion } from './conversionReview';
import { conversionWebhookUrl } from './conversionWebhookUrl';
import { certificateNotAfter, issueCertificate } from './issueCertificate';

/** @public */
export interface ConversionWebhookOptions {
  /** Port of the HTTPS server; 0 picks a free one. Default 9443. */
  port?: number;
  /** Address it listens on. Default all. */
  host?: string;
  /**
   * How the API server reaches the webhook: a URL (an operator outside the
   * cluster, e.g. on the control plane's host: https://127.0.0.1:9443, to which
   * the path /convert is added when it has none) or, by default, the webhook
   * Service in the operator's namespace. `{port}` is filled in with the port
   * it listens on (for port 0).
   */
  url?: string;
  service?: { namespace: string; name: string; port?: number };
  /** The Secret every replica reads its certificate from, in the operator's namespace. */
  secretNamespace: string;
  secretName?: string;
  /** Lifetime of a serving certificate. Default 90 days. */
  certValidityMs?: number;
  /** Renew when less than this is left. Default a third of the validity. */
  renewBeforeMs?: number;
  /** How often the Secret and the CRD are looked at again. Default 60 s. */
  checkIntervalMs?: number;
  /** Default inferenceplatforms.cv.platform.tech. */
  crdName?: string;
}

/** @public */
export interface ConversionWebhookState {
  serving: boolean;
  /** host:port it listens on. */
  address?: string;
  certificateNotAfter?: string;
  /** The CRD names this webhook, with a caBundle that trusts its certificate. */
  crdConfigured: boolean;
  conversions: number;
  failures: number;
  lastError?: string;
}

const MAX_REVIEW_BYTES = 64 * 1024 * 1024;

/**
 * The conversion webhook of the InferencePlatform CRD, served by every
 * operator replica (the API server calls whichever its Service picks). The
 * certificate lives in a Secret so replicas share it; any replica issues a
 * new one when it is missing, names other hosts or nears its end (a write
 * guarded by resourceVersion, so two replicas never both win), then writes
 * the CRD's clientConfig with a caBundle of the new CA and the previous one,
 * so that a replica still serving the old certificate stays trusted until
 * it reloads.
 *
 * @public
 */
export class ConversionWebhook {
  private server?: https.Server;
  private timer?: NodeJS.Timeout;
  private servedCert?: string;
  private readonly state: ConversionWebhookState = { serving: false, crdConfigured: false, conversions: 0, failures: 0 };
  private readonly secretName: string;
  private readonly crdName: string;
  private readonly validityMs: number;
  private readonly renewBeforeMs: number;
  private checking?: Promise<void>;

  constructor(
    private readonly client: KubeClient,
    private readonly options: ConversionWebhookOptions,
    private readonly logger: Logger = noopLogger,
  ) {
    this.secretName = options.secretName ?? 'inference-platform-operator-webhook-tls';
    this.crdName = options.crdName ?? `${PLURAL}.${GROUP}`;
    this.validityMs = options.certValidityMs ?? 90 * 24 * 3600_000;
    this.renewBeforeMs = options.renewBeforeMs ?? this.validityMs / 3;
  }

  status(): ConversionWebhookState {
    return { ...this.state };
  }

  /** The port it listens on (after start). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async start(): Promise<void> {
    const secret = await this.ensureCertificate();
    this.server = https.createServer(
      { cert: secret.cert, key: secret.key, minVersion: 'TLSv1.2' },
      (req, res) => void this.handle(req, res),
    );
    this.servedCert = secret.cert;
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.options.port ?? 9443, this.options.host, () => resolve());
    });
    const addr = this.server.address() as AddressInfo;
    this.state.serving = true;
    this.state.address = `${addr.address}:${addr.port}`;
    this.state.certificateNotAfter = certificateNotAfter(secret.cert).toISOString();
    this.logger.info('Serving conversion webhook', { address: this.state.address });
    await this.configureCrd(secret.caBundle);
    this.timer = setInterval(() => void this.check(), this.options.checkIntervalMs ?? 60_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.state.serving = false;
    await this.checking;
    const server = this.server;
    this.server = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>(resolve => server.close(() => resolve()));
    }
  }

  /** Looks at the Secret and the CRD again: renews, reloads, re-injects as needed. */
  check(): Promise<void> {
    this.checking ??= (async () => {
      try {
        const secret = await this.ensureCertificate();
        if (secret.cert !== this.servedCert && this.server) {
          this.server.setSecureContext({ cert: secret.cert, key: secret.key, minVersion: 'TLSv1.2' });
          this.servedCert = secret.cert;
          this.state.certificateNotAfter = certificateNotAfter(secret.cert).toISOString();
          this.logger.info('Reloaded conversion webhook certificate', { notAfter: this.state.certificateNotAfter });
        }
        await this.configureCrd(secret.caBundle);
        this.state.lastError = undefined;
      } catch (e) {
        this.state.lastError = e instanceof Error ? e.message : String(e);
        this.logger.warn(`conversion webhook check failed: ${this.state.lastError}`);
      } finally {
        this.checking = undefined;
      }
    })();
    return this.checking;
  }

  private hosts(): { dnsNames: string[]; ipAddresses: string[] } {
    if (this.options.url) {
      const host = new URL(this.options.url.replace('{port}', '1')).hostname.replace(/^\[|\]$/g, '');
      return /^[0-9.]+$|:/.test(host) ? { dnsNames: [], ipAddresses: [host] } : { dnsNames: [host], ipAddresses: [] };
    }
    const svc = this.service();
    return {
      dnsNames: [`${svc.name}.${svc.namespace}.svc`, `${svc.name}.${svc.namespace}.svc.cluster.local`],
      ipAddresses: [],
    };
  }

  private service() {
    return {
      namespace: this.options.service?.namespace ?? this.options.secretNamespace,
      name: this.options.service?.name ?? CONVERSION_WEBHOOK_SERVICE.name,
      port: this.options.service?.port ?? CONVERSION_WEBHOOK_SERVICE.port,
      path: CONVERSION_WEBHOOK_SERVICE.path,
    };
  }

  private get secretPath() {
    return `/api/v1/namespaces/${this.options.secretNamespace}/secrets/${this.secretName}`;
  }

  /** The certificate in the Secret, issued first if it is missing, for other hosts, or due. */
  private async ensureCertificate(): Promise<{ cert: string; key: string; caBundle: string }> {
    for (let attempt = 0; ; attempt++) {
      let current: any;
      try {
        current = await this.client.request('GET', this.secretPath);
      } catch (e) {
        if (!(e instanceof KubeApiError && e.statusCode === 404)) throw e;
      }
      const data = current?.data ?? {};
      const decoded = (k: string) => (data[k] ? Buffer.from(data[k], 'base64').toString('utf8') : undefined);
      const cert = decoded('tls.crt');
      const key = decoded('tls.key');
      const caBundle = decoded('ca.crt');
      const hosts = JSON.stringify(this.hosts());
      const remainingMs = cert ? certificateNotAfter(cert).getTime() - Date.now() : 0;
      const due = remainingMs < this.renewBeforeMs;
      if (cert && key && caBundle && !due && current.metadata?.annotations?.['cv.platform.tech/webhook-hosts'] === hosts) {
        return { cert, key, caBundle };
      }
      const issued = await issueCertificate({ ...this.hosts(), validityMs: this.validityMs });
      // The previous CA stays trusted while replicas may still serve its certificate.
      const previousCa = remainingMs > 0 ? caBundle?.split(/(?<=-----END CERTIFICATE-----\n?)/)[0] : undefined;
      const bundle = issued.caCert + (previousCa ? `${previousCa.trim()}\n` : '');
      const body = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: {
          name: this.secretName,
          namespace: this.options.secretNamespace,
          labels: { 'app.kubernetes.io/managed-by': 'inference-platform-operator' },
          annotations: { 'cv.platform.tech/webhook-hosts': hosts },
          ...(current ? { resourceVersion: current.metadata.resourceVersion } : {}),
        },
        data: {
          'tls.crt': Buffer.from(issued.cert).toString('base64'),
          'tls.key': Buffer.from(issued.key).toString('base64'),
          'ca.crt': Buffer.from(bundle).toString('base64'),
        },
      };
      try {
        if (current) await this.client.request('PUT', this.secretPath, body);
        else await this.client.request('POST', `/api/v1/namespaces/${this.options.secretNamespace}/secrets`, body);
        this.logger.info(current ? 'Rotated conversion webhook certificate' : 'Created conversion webhook certificate', {
          name: this.secretName,
          namespace: this.options.secretNamespace,
          notAfter: issued.notAfter.toISOString(),
        });
        return { cert: issued.cert, key: issued.key, caBundle: bundle };
      } catch (e) {
        // Another replica wrote it first: use theirs.
        if (e instanceof KubeApiError && (e.statusCode === 409 || e.statusCode === 422) && attempt < 3) continue;
        throw e;
      }
    }
  }

  /** Points the CRD's conversion webhook at this webhook, trusting caBundle. */
  private async configureCrd(caBundle: string): Promise<void> {
    const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${this.crdName}`;
    const crd = await this.client.request('GET', path);
    const conversion = crd.spec?.conversion;
    if (conversion?.strategy !== 'Webhook') {
      // A CRD that serves one version converts nothing: nothing to point.
      this.state.crdConfigured = false;
      return;
    }
    const bundle = Buffer.from(caBundle).toString('base64');
    const url = this.options.url === undefined ? undefined : conversionWebhookUrl(this.options.url, this.port);
    const clientConfig = url ? { url, service: null, caBundle: bundle } : { url: null, service: this.service(), caBundle: bundle };
    const live = conversion.webhook?.clientConfig ?? {};
    const same =
      live.caBundle === bundle &&
      (url
        ? live.url === url && !live.service
        : !live.url && JSON.stringify(live.service) === JSON.stringify(this.service()));
    if (!same) {
      await this.client.mergePatch(path, { spec: { conversion: { webhook: { clientConfig } } } });
      this.logger.info('Configured conversion webhook of CustomResourceDefinition', { name: this.crdName });
    }
    this.state.crdConfigured = true;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown) => {
      res.statusCode = status;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(body));
    };
    const url = new URL(req.url ?? '/', 'https://webhook');
    if (req.method === 'GET' && url.pathname === '/healthz') return send(200, this.status());
    if (url.pathname !== CONVERSION_WEBHOOK_SERVICE.path) return send(404, { message: `no such path ${url.pathname}` });
    if (req.method !== 'POST') return send(405, { message: 'POST a ConversionReview' });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += chunk.length;
      if (size > MAX_REVIEW_BYTES) return send(413, { message: `a ConversionReview may hold at most ${MAX_REVIEW_BYTES} bytes` });
      chunks.push(chunk);
    }
    let review: unknown;
    try {
      review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (e) {
      return send(400, { message: `the body is not JSON: ${e instanceof Error ? e.message : e}` });
    }
    try {
      const answer = reviewConversion(review);
      if (answer.response!.result.status === 'Success') this.state.conversions += answer.response!.convertedObjects!.length;
      else {
        this.state.failures++;
        this.logger.warn(`conversion failed: ${answer.response!.result.message}`);
      }
      return send(200, answer);
    } catch (e) {
      if (e instanceof BadReviewError) return send(400, { message: e.message });
      this.state.failures++;
      return send(500, { message: 'conversion failed unexpectedly' });
    }
  }
}
