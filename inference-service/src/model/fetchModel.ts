import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { downloadToCache } from './downloadToCache';
import { ModelFetchError } from './ModelFetchError';
import type { FetchedModel } from './FetchedModel';

export type { FetchedModel };

export interface FetchOptions {
  /** Where downloads are written (the model file must be on disk for the workers). */
  cacheDir: string;
  /** For s3:// URLs; credentials come from the AWS SDK's default chain (env, IRSA, ...). */
  s3?: { endpoint?: string; forcePathStyle?: boolean; region?: string };
  timeoutMs?: number;
  maxBytes?: number;
}

export { ModelFetchError };

function redact(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = u.search ? '?…' : '';
    return u.toString();
  } catch {
    return url;
  }
}

function local(file: string, source: string): FetchedModel {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (err) {
    throw new ModelFetchError(
      `${source}: ${
        (err as NodeJS.ErrnoException).code === 'ENOENT'
          ? 'no such file'
          : (err as Error).message
      }`,
    );
  }
  if (!stat.isFile())
    throw new ModelFetchError(`${source}: not a regular file`);
  if (stat.size === 0) throw new ModelFetchError(`${source}: empty model file`);
  return { path: file, temporary: false, source };
}

/**
 * Makes the model at `url` available as a local file: `file://` and plain
 * paths (the operator's init container / PVC) are used in place, `http(s)://`
 * and `s3://bucket/key` are downloaded into the cache directory.
 */
export async function fetchModel(
  url: string,
  options: FetchOptions,
): Promise<FetchedModel> {
  const source = redact(url);
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 10 * 60_000);
  if (url.startsWith('file://')) return local(fileURLToPath(url), source);
  if (url.startsWith('http://') || url.startsWith('https://')) {
    let res: Response;
    try {
      res = await fetch(url, { signal: timeout, redirect: 'follow' });
    } catch (err) {
      throw new ModelFetchError(`${source}: ${(err as Error).message}`);
    }
    if (!res.ok || !res.body) {
      throw new ModelFetchError(
        `${source}: HTTP ${res.status} ${res.statusText}`.trim(),
      );
    }
    return downloadToCache(Readable.fromWeb(res.body as any), options, source);
  }
  if (url.startsWith('s3://')) {
    const match = /^s3:\/\/([^/]+)\/(.+)$/.exec(url);
    if (!match)
      throw new ModelFetchError(`${source}: expected s3://bucket/key`);
    const endpoint =
      options.s3?.endpoint ??
      process.env.AWS_ENDPOINT_URL_S3 ??
      process.env.AWS_ENDPOINT_URL;
    const client = new S3Client({
      region:
        options.s3?.region ??
        process.env.AWS_REGION ??
        process.env.AWS_DEFAULT_REGION ??
        'us-east-1',
      endpoint,
      // S3-compatible servers (MinIO, Ceph, versitygw) usually need path-style.
      forcePathStyle: options.s3?.forcePathStyle ?? Boolean(endpoint),
    });
    try {
      const out = await client.send(
        new GetObjectCommand({ Bucket: match[1], Key: match[2] }),
        {
          abortSignal: timeout,
        },
      );
      if (!out.Body)
        throw new ModelFetchError(`${source}: empty response body`);
      return await downloadToCache(out.Body as Readable, options, source);
    } catch (err) {
      if (err instanceof ModelFetchError) throw err;
      const e = err as Error & { $metadata?: { httpStatusCode?: number } };
      const status = e.$metadata?.httpStatusCode
        ? ` (HTTP ${e.$metadata.httpStatusCode})`
        : '';
      throw new ModelFetchError(`${source}: ${e.name}: ${e.message}${status}`);
    } finally {
      client.destroy();
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    throw new ModelFetchError(
      `${source}: unsupported scheme (use file://, http(s)://, s3:// or a path)`,
    );
  }
  return local(path.resolve(url), source);
}
