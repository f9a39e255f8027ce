import fs from 'node:fs';
import https from 'node:https';
import yaml from 'js-yaml';

export interface ApiResponse {
  status: number;
  body: any;
}

/**
 * Minimal authenticated JSON requests to one API server: enough for the
 * harness to bootstrap the cluster and for tests to act as `kubectl` would.
 */
export class ApiRequester {
  constructor(
    readonly server: string,
    private readonly ca: string,
    private readonly token: string,
  ) {}

  /** Reads a kubeconfig written by the harness (token user, inline CA). */
  static fromKubeconfig(file: string): ApiRequester {
    const kc = yaml.load(fs.readFileSync(file, 'utf8')) as any;
    const ctx = kc.contexts.find((c: any) => c.name === kc['current-context']).context;
    const cluster = kc.clusters.find((c: any) => c.name === ctx.cluster).cluster;
    const user = kc.users.find((u: any) => u.name === ctx.user).user;
    return new ApiRequester(
      cluster.server,
      Buffer.from(cluster['certificate-authority-data'], 'base64').toString('utf8'),
      user.token,
    );
  }

  request(method: string, urlPath: string, body?: unknown, contentType = 'application/json'): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(urlPath, this.server),
        {
          method,
          ca: this.ca,
          headers: {
            Authorization: `Bearer ${this.token}`,
            Accept: 'application/json',
            ...(body !== undefined ? { 'Content-Type': contentType } : {}),
          },
        },
        res => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', c => (text += c));
          res.on('end', () => {
            let parsed: unknown = text;
            try {
              parsed = JSON.parse(text);
            } catch {
              // not JSON
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
        },
      );
      req.on('error', reject);
      if (body !== undefined) req.write(typeof body === 'string' ? body : JSON.stringify(body));
      req.end();
    });
  }

  /** Server-side apply of one object (the plural is derived from the kind). */
  async apply(obj: any, fieldManager = 'local-cluster'): Promise<any> {
    const { apiVersion, kind } = obj;
    const lower = kind.toLowerCase();
    let plural = `${lower}s`;
    if (lower === 'endpoints') plural = lower;
    else if (lower.endsWith('s')) plural = `${lower}es`;
    else if (lower.endsWith('y')) plural = `${lower.slice(0, -1)}ies`;
    const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
    const ns = obj.metadata.namespace ? `/namespaces/${obj.metadata.namespace}` : '';
    const res = await this.request(
      'PATCH',
      `${base}${ns}/${plural}/${obj.metadata.name}?fieldManager=${fieldManager}&force=true`,
      JSON.stringify(obj),
      'application/apply-patch+yaml',
    );
    if (res.status >= 300) {
      throw new Error(`apply ${kind}/${obj.metadata.name} failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    return res.body;
  }
}
