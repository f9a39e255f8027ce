import type { Readable } from 'node:stream';

/** One line of an NDJSON body: its bytes, or that it was longer than allowed (and skipped). */
export type NdjsonLine = { n: number; text: string } | { n: number; tooLong: number };

/**
 * Splits a streamed body into lines without ever holding more than one line
 * of at most `maxLineBytes` (plus the chunk being read): a longer line is
 * dropped as it streams and reported by its size. Reading pauses while the
 * consumer is busy with a line, so a slow consumer back-pressures the client.
 * Blank lines are skipped; line numbers count them.
 */
export async function* ndjsonLines(body: Readable, maxLineBytes: number): AsyncGenerator<NdjsonLine> {
  let parts: Buffer[] = [];
  let held = 0;
  let skipping = 0;
  let n = 0;
  const finish = (): NdjsonLine | undefined => {
    n++;
    if (skipping) {
      const size = skipping;
      skipping = 0;
      return { n, tooLong: size };
    }
    const text = Buffer.concat(parts, held).toString('utf8').trim();
    parts = [];
    held = 0;
    return text ? { n, text } : undefined;
  };
  for await (const chunk of body as AsyncIterable<Buffer>) {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? chunk.length : nl;
      const piece = chunk.subarray(start, end);
      if (skipping) skipping += piece.length;
      else if (held + piece.length > maxLineBytes) {
        skipping = held + piece.length;
        parts = [];
        held = 0;
      } else {
        // A copy: the chunk's memory is not kept alive by a small slice.
        parts.push(Buffer.from(piece));
        held += piece.length;
      }
      if (nl < 0) break;
      const line = finish();
      if (line) yield line;
      start = nl + 1;
    }
  }
  if (held || skipping) {
    const line = finish();
    if (line) yield line;
  }
}
