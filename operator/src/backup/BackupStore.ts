import { createHash } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BackupS3Target } from '@cv-platform/inference-platform-api';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/**
 * The bucket backups live in: every backup is a folder
 * `<prefix>/<namespace>/<platform>/<id>/` holding one object per snapshot
 * and a `manifest.json` written last, so a folder without a manifest is an
 * unfinished backup.
 */
export class BackupStore {
  private readonly client: S3Client;
  readonly bucket: string;
  private readonly prefix: string;

  constructor(target: BackupS3Target, credentials?: S3Credentials) {
    this.bucket = target.bucket;
    this.prefix = (target.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.client = new S3Client({
      region: target.region ?? 'us-east-1',
      ...(target.endpoint ? { endpoint: target.endpoint } : {}),
      forcePathStyle: target.forcePathStyle ?? !!target.endpoint,
      ...(credentials ? { credentials } : {}),
    });
  }

  /** Where one platform's backups are: `<prefix>/<namespace>/<platform>/`. */
  platformFolder(namespace: string, platform: string): string {
    return `${this.prefix ? `${this.prefix}/` : ''}${namespace}/${platform}/`;
  }

  location(key: string): string {
    return `s3://${this.bucket}/${key}`;
  }

  /**
   * Streams a snapshot into the bucket while hashing it; a body whose
   * SHA-256 is not the one Qdrant gave is deleted again and refused.
   */
  async upload(key: string, body: Readable, checksum: string): Promise<number> {
    const hash = createHash('sha256');
    let size = 0;
    const tee = new PassThrough();
    tee.on('data', chunk => {
      hash.update(chunk);
      size += chunk.length;
    });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: tee, Metadata: { sha256: checksum } },
    });
    await Promise.all([pipeline(body, tee), upload.done()]);
    const got = hash.digest('hex');
    if (got !== checksum) {
      await this.deleteKeys([key]);
      throw new Error(`snapshot ${key}: uploaded ${size} bytes with SHA-256 ${got}, Qdrant said ${checksum}`);
    }
    return size;
  }

  async putJson(key: string, value: unknown): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: JSON.stringify(value, null, 2), ContentType: 'application/json' }),
    );
  }

  /** undefined when there is no such object. */
  async getJson<T>(key: string): Promise<T | undefined> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return JSON.parse(await res.Body!.transformToString()) as T;
    } catch (e: any) {
      if (e?.name === 'NoSuchKey' || e?.$metadata?.httpStatusCode === 404) return undefined;
      throw e;
    }
  }

  /** The sub-folders of a folder (backup ids under a platform's folder). */
  async folders(folder: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const res = await this.client.send(
        new ListObjectsV2Command({ Bucket: this.bucket, Prefix: folder, Delimiter: '/', ContinuationToken: token }),
      );
      for (const p of res.CommonPrefixes ?? []) if (p.Prefix) out.push(p.Prefix.slice(folder.length).replace(/\/$/, ''));
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
    return out.sort();
  }

  /** Deletes every object under a folder. */
  async deleteFolder(folder: string): Promise<void> {
    let token: string | undefined;
    do {
      const res = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: folder, ContinuationToken: token }));
      await this.deleteKeys((res.Contents ?? []).map(o => o.Key!).filter(Boolean));
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }

  /** A URL a Qdrant peer downloads the snapshot from itself (no credentials of its own needed). */
  async presignedGet(key: string, expiresInSeconds = 3600): Promise<string> {
    return getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.bucket, Key: key }), { expiresIn: expiresInSeconds });
  }

  close(): void {
    this.client.destroy();
  }

  private async deleteKeys(keys: string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += 1000) {
      const batch = keys.slice(i, i + 1000);
      if (!batch.length) continue;
      await this.client.send(
        new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch.map(Key => ({ Key })), Quiet: true } }),
      );
    }
  }
}
