import http from 'node:http';
import { AddressInfo } from 'node:net';
import { mockCredentials } from '@backstage/backend-test-utils';

/** One SSE frame as it arrived. */
export interface FeedFrame {
  id?: string;
  event?: string;
  data?: any;
}

/** A raw SSE reader of the plugin's /events over a real socket: frames as they arrive. */
export function openFeed(server: http.Server, lastEventId?: string, query = '') {
  const { port } = server.address() as AddressInfo;
  const frames: FeedFrame[] = [];
  let buffer = '';
  const req = http.get({
    host: '127.0.0.1',
    port,
    path: `/api/inference-platform/events${query}`,
    headers: { Authorization: mockCredentials.user.header(), ...(lastEventId ? { 'Last-Event-ID': lastEventId } : {}) },
  });
  req.on('response', res => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let i: number = buffer.indexOf('\n\n');
      while (i >= 0) {
        const block = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        const f: FeedFrame = {};
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) f.id = line.slice(4);
          else if (line.startsWith('event: ')) f.event = line.slice(7);
          else if (line.startsWith('data: ')) f.data = JSON.parse(line.slice(6));
        }
        if (f.event) frames.push(f);
        i = buffer.indexOf('\n\n');
      }
    });
  });
  req.on('error', () => {});
  return { frames, close: () => req.destroy() };
}
