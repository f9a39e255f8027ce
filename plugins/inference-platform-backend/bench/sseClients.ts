/**
 * Child process of sseBench: opens N SSE connections (or polls) and records,
 * per client, when each benchmark change became visible. Uses the system-wide
 * monotonic clock so the parent can compare with its send times.
 */
import http from 'node:http';

const [mode, url, countText, pollMsText] = process.argv.slice(2);
const count = Number(countText);
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const seen: Array<Map<number, bigint>> = Array.from({ length: count }, () => new Map());

function record(client: number, text: string) {
  // The parent labels each change with bench-seq=<n>.
  for (const m of text.matchAll(/"bench-seq":"(\d+)"/g)) {
    const seq = Number(m[1]);
    if (!seen[client].has(seq)) seen[client].set(seq, process.hrtime.bigint());
  }
}

function sse(client: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent, headers: { Accept: 'text/event-stream' } }, res => {
      res.setEncoding('utf8');
      let snapshot = false;
      let buf = '';
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i = buf.indexOf('\n\n');
        while (i >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (!snapshot && frame.includes('event: snapshot')) {
            snapshot = true;
            resolve();
          } else if (frame.includes('event: MODIFIED')) {
            record(client, frame);
          }
          i = buf.indexOf('\n\n');
        }
      });
    });
    req.on('error', reject);
  });
}

function poll(client: number, intervalMs: number) {
  const tick = () => {
    http
      .get(url, { agent }, res => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', c => (body += c));
        res.on('end', () => record(client, body));
      })
      .on('error', () => {});
  };
  // Spread clients over the interval, as independent browsers would be.
  setTimeout(() => {
    tick();
    setInterval(tick, intervalMs).unref();
  }, Math.floor((client / count) * intervalMs)).unref();
}

async function main() {
  if (mode === 'sse') {
    await Promise.all(Array.from({ length: count }, (_, i) => sse(i)));
  } else {
    for (let i = 0; i < count; i++) poll(i, Number(pollMsText));
  }
  process.send!({ ready: true });
  process.on('message', (m: any) => {
    if (m.collect) {
      process.send!({
        results: seen.map(s => [...s.entries()].map(([seq, t]) => [seq, t.toString()])),
      });
    }
  });
}

main().catch(e => {
  process.stderr.write(`${e}\n`);
  process.exit(1);
});
