import {
  CreateBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import os from 'node:os';
import { findRepoRoot } from '../findRepoRoot';
import { freePort } from '../freePort';

/** Pinned in tools/s3server/go.mod; bump both together. */
export const VERSITYGW_VERSION = 'v1.8.0';

/**
 * Path of the versitygw binary (an Apache-2.0 S3 gateway, here over a
 * local directory), built from the Go module proxy into the cache on first
 * use. Takes a few minutes once per machine; never committed.
 */
export function ensureVersitygw(): string {
  const cache =
    process.env.CV_PLATFORM_CACHE ??
    path.join(
      process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
      'cv-platform',
    );
  const bin = path.join(cache, 'tools', `versitygw-${VERSITYGW_VERSION}`);
  if (fs.existsSync(bin)) return bin;
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  const tmp = `${bin}.${process.pid}.tmp`;
  execFileSync(
    'go',
    [
      'build',
      '-ldflags=-s -w',
      '-o',
      tmp,
      'github.com/versity/versitygw/cmd/versitygw',
    ],
    {
      cwd: path.join(findRepoRoot(), 'tools', 's3server'),
      stdio: 'inherit',
      env: { ...process.env, GOFLAGS: '-mod=mod' },
    },
  );
  fs.renameSync(tmp, bin);
  return bin;
}

async function waitForPort(
  host: string,
  port: number,
  child: ChildProcess,
  log: () => string,
): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`versitygw exited: ${log()}`);
    const ok = await new Promise<boolean>(resolve => {
      const s = net.connect(port, host);
      s.once('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise(r => setTimeout(r, 50));
  }
  throw new Error(`versitygw did not listen on ${port}: ${log()}`);
}

/** A real S3-compatible server (versitygw, posix backend) on 127.0.0.1. */
export class S3TestServer {
  readonly accessKeyId = 'cvplatformtest';
  readonly secretAccessKey = 'cvplatformtestsecret';
  endpoint = '';
  private child?: ChildProcess;
  private temp?: { dir: string; cleanup: () => void };

  /** host: the address to listen on (a real node's pods reach the host at its bridge address). */
  async start(host = '127.0.0.1', fixedPort?: number): Promise<void> {
    const bin = ensureVersitygw();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'versitygw-'));
    this.temp = {
      dir,
      cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
    };
    const root = path.join(this.temp.dir, 'root');
    fs.mkdirSync(root);
    const port = fixedPort ?? (await freePort());
    let output = '';
    this.child = spawn(
      bin,
      [
        '--access',
        this.accessKeyId,
        '--secret',
        this.secretAccessKey,
        '--port',
        `${host}:${port}`,
        '--quiet',
        'posix',
        root,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.child.stdout!.on('data', d => (output += d));
    this.child.stderr!.on('data', d => (output += d));
    await waitForPort(host, port, this.child, () => output);
    this.endpoint = `http://${host}:${port}`;
  }

  private client(): S3Client {
    return new S3Client({
      region: 'us-east-1',
      endpoint: this.endpoint,
      forcePathStyle: true,
      credentials: {
        accessKeyId: this.accessKeyId,
        secretAccessKey: this.secretAccessKey,
      },
    });
  }

  /** The keys in a bucket under a prefix, sorted. */
  async listKeys(bucket: string, prefix = ''): Promise<string[]> {
    const client = this.client();
    try {
      const res = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }),
      );
      return (res.Contents ?? []).map(o => o.Key!).sort();
    } finally {
      client.destroy();
    }
  }

  /** Puts these objects (key -> bytes) into a bucket, created when missing, as the server's own client. */
  async putObjects(
    bucket: string,
    objects: Record<string, Buffer>,
  ): Promise<void> {
    const client = this.client();
    try {
      await client
        .send(new CreateBucketCommand({ Bucket: bucket }))
        .catch(e => {
          if (e?.name !== 'BucketAlreadyOwnedByYou') throw e;
        });
      for (const [key, body] of Object.entries(objects)) {
        await client.send(
          new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }),
        );
      }
    } finally {
      client.destroy();
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null) {
      await new Promise<void>(resolve => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    }
    this.temp?.cleanup();
  }
}
