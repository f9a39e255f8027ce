import type { Request, Response } from 'express';
import { Embedder, ModelNotReadyError } from '../inference/Embedder';
import { Batcher, QueueFullError } from '../inference/Batcher';
import { ImageDecodeError } from '../inference/decodeImage';
import { Metrics } from '../metrics/createMetrics';
import { DimensionMismatchError, PointInput, VectorStore } from '../vectorstore/VectorStore';
import { HttpError } from './HttpError';
import { ForwardWrite } from './forwardWrites';
import { ndjsonLines } from './ndjsonLines';
import { parseFetchableUrl, parseId, parsePayloadObject } from './requestFields';

export interface IndexBatchOptions {
  embedder: Embedder;
  store: VectorStore;
  metrics: Metrics;
  maxImageBytes: number;
  /** Points written to the store in one upsert. */
  upsertBatch: number;
  /** Items read ahead and in flight at once: with the line limit, what bounds a request's memory. */
  window: number;
  /** How long a partly filled upsert waits for more items. */
  upsertLingerMs?: number;
  forwardWrite?: ForwardWrite;
}

/** What each item of a batch gets back, one NDJSON line each, in the order sent. */
export type ItemResult =
  | { line: number; id: string; ok: true }
  | { line: number; id?: string; ok: false; error: { code: string; message: string } };

const NDJSON = /^application\/(x-ndjson|jsonl|x-jsonlines)$/;

/** Base64 of the largest image, plus room for the id, payload and JSON. */
export const maxLineBytes = (maxImageBytes: number) => Math.ceil(maxImageBytes / 3) * 4 + 64 * 1024;

function itemError(err: unknown): { code: string; message: string } {
  if (err instanceof HttpError || err instanceof ImageDecodeError) return { code: err.code, message: err.message };
  if (err instanceof ModelNotReadyError) return { code: 'model_not_ready', message: err.message };
  if (err instanceof DimensionMismatchError) return { code: 'dimension_mismatch', message: err.message };
  return { code: 'vector_store_unavailable', message: `vector store error: ${(err as Error).message}` };
}

/**
 * `POST /v1/index/batch`: NDJSON in, NDJSON out. Each line is
 * `{"id", "image": <base64>, "payload"?, "source"?}` (`source`, the URL the
 * image was read from, is kept in the payload for re-embedding); each gets
 * its own answer line (ok, or an error code and reason), so one bad image
 * never fails the others, then a summary line. Reading stops while `window`
 * items are in flight, so memory stays bounded whatever the request's size.
 */
export function indexBatch(options: IndexBatchOptions) {
  const { embedder, metrics } = options;
  const upsertLinger = options.upsertLingerMs ?? 20;

  const embed = async (image: Buffer) => {
    // Other requests share the queue: wait for room rather than fail the item.
    for (let attempt = 1; ; attempt++) {
      try {
        return await embedder.embed(image);
      } catch (err) {
        if (!(err instanceof QueueFullError) || attempt >= 50) throw err;
        await new Promise(r => setTimeout(r, Math.min(20 * attempt, 500)));
      }
    }
  };

  const item = async (n: number, text: string, writer: Batcher<PointInput, void>): Promise<ItemResult> => {
    let id: string | undefined;
    try {
      let parsed: any;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new HttpError(400, 'invalid_json', `line ${n} is not JSON`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        throw new HttpError(400, 'invalid_item', `line ${n} must be a JSON object`);
      }
      // A numeric id is the same id as its decimal string.
      id = parseId(parsed.id === undefined ? undefined : String(parsed.id));
      const payload = parsePayloadObject(parsed.payload);
      const source = parseFetchableUrl(parsed.source, 'invalid_source', 'source');
      if (source) payload.source = source;
      if (typeof parsed.image !== 'string' || parsed.image.length === 0) {
        throw new HttpError(400, 'missing_image', 'image (the image bytes, base64) is required');
      }
      const image = Buffer.from(parsed.image, 'base64');
      if (image.length === 0) throw new HttpError(400, 'invalid_image', 'image is not base64');
      if (image.length > options.maxImageBytes) {
        throw new HttpError(413, 'payload_too_large', `image is ${image.length} bytes; the limit is ${options.maxImageBytes}`);
      }
      const { vector } = await embed(image);
      await writer.submit({ id, vector, payload });
      if (options.forwardWrite) {
        // A canary's writes reach the stable servers too, one image each.
        const query = new URLSearchParams({ id, payload: JSON.stringify(payload) });
        await options.forwardWrite({ method: 'POST', path: `/v1/index?${query}`, body: image, contentType: 'application/octet-stream' });
      }
      return { line: n, id, ok: true };
    } catch (err) {
      const error = itemError(err);
      metrics.imagesRejected.inc({ reason: error.code });
      return { line: n, ...(id === undefined ? {} : { id }), ok: false, error };
    }
  };

  return async (req: Request, res: Response): Promise<void> => {
    const mediaType = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (!NDJSON.test(mediaType)) {
      throw new HttpError(
        415,
        'unsupported_content_type',
        `Content-Type ${mediaType || '(none)'} is not accepted: send application/x-ndjson, one JSON object per line`,
      );
    }
    if (embedder.dim === undefined) throw new ModelNotReadyError('model not loaded');
    // The service's own dynamic batching, for upserts: a write when full or
    // after a short linger. Never more queued than the window holds.
    const writer = new Batcher<PointInput, void>({
      maxBatchSize: options.upsertBatch,
      maxLatencyMs: upsertLinger,
      maxQueue: options.window,
      concurrency: () => 2,
      runBatch: async points => {
        await options.store.upsertMany(points);
        return points.map(() => undefined);
      },
    });
    const inFlight: Array<Promise<ItemResult>> = [];
    let items = 0;
    let indexed = 0;
    let closed = false;
    res.on('close', () => {
      closed = true;
    });
    res.status(200).type('application/x-ndjson');
    const answer = async () => {
      const result = await inFlight.shift()!;
      if (result.ok) indexed++;
      if (!closed) res.write(`${JSON.stringify(result)}\n`);
    };
    for await (const line of ndjsonLines(req, maxLineBytes(options.maxImageBytes))) {
      if (closed) break;
      items++;
      inFlight.push(
        'tooLong' in line
          ? Promise.resolve<ItemResult>({
              line: line.n,
              ok: false,
              error: { code: 'payload_too_large', message: `line ${line.n} is ${line.tooLong} bytes; the limit is ${maxLineBytes(options.maxImageBytes)}` },
            })
          : item(line.n, line.text, writer),
      );
      if (inFlight.length >= options.window) await answer();
    }
    while (inFlight.length) await answer();
    if (!closed) res.end(`${JSON.stringify({ done: true, items, indexed, failed: items - indexed })}\n`);
  };
}
