import fs from 'node:fs';
import path from 'node:path';
import { QdrantClusterDouble } from './QdrantClusterDouble';

/**
 * Replays the calls recorded from a real Qdrant 1.14.1 cluster (recorded/,
 * a copy of ../shared/qdrant-api/) against the double, peer for peer, with
 * the recorded peer ids: every answer must have the recorded status code and
 * shape, and where the outcome is determined (errors, shard placement,
 * transfers, counts) the recorded values.
 */

interface Call {
  request: { method: string; path: string; body: unknown; peer_http_port: number };
  response: { status: number; body: any };
}

const recorded = (file: string): Call[] =>
  JSON.parse(fs.readFileSync(path.join(__dirname, 'recorded', `${file}.json`), 'utf8'));

// Peers of the drain recordings, by the HTTP port they were asked on.
const PEERS: Record<number, number> = { 16333: 4066521096024102, 16343: 235948515111813, 16353: 4024744363137770 };

/**
 * The JSON shape: key sets and value types, recursively (arrays by their
 * first element; maps keyed by peer id by their first entry).
 */
function shape(v: any): unknown {
  if (Array.isArray(v)) return v.length ? [shape(v[0])] : [];
  if (v && typeof v === 'object') {
    const keys = Object.keys(v).sort();
    if (keys.length && keys.every(k => /^\d+$/.test(k))) return { '<peer id>': shape(v[keys[0]]) };
    return Object.fromEntries(keys.map(k => [k, shape(v[k])]));
  }
  return v === null ? 'null' : typeof v;
}

/** Replica placement of a /collections/{c}/cluster answer: "shard@peer state" lines. */
function placement(result: any): string[] {
  return [
    ...result.local_shards.map((s: any) => `${s.shard_id}@${result.peer_id} ${s.state}`),
    ...result.remote_shards.map((s: any) => `${s.shard_id}@${s.peer_id} ${s.state}`),
  ].sort();
}

describe('QdrantClusterDouble against the recorded real-Qdrant answers', () => {
  let double: QdrantClusterDouble;

  beforeEach(async () => {
    // Transfers stay in flight until completed, as the recording caught them.
    double = await new QdrantClusterDouble({ transferMs: null }).start();
    for (const [port, id] of Object.entries(PEERS)) double.addPeer(`http://127.0.0.1:${Number(port) + 2}/`, id);
  });
  afterEach(() => double.stop());

  /** errorText: the recorded error as the double must word it here (URLs and checksums differ). */
  async function replay(call: Call, errorText?: string): Promise<any> {
    const peer = PEERS[call.request.peer_http_port];
    const res = await fetch(`${double.urlOf(peer)}${call.request.path}`, {
      method: call.request.method,
      headers: call.request.body === null ? {} : { 'content-type': 'application/json' },
      body: call.request.body === null ? undefined : JSON.stringify(call.request.body),
    });
    const text = await res.text();
    const body = res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    const what = `${call.request.method} ${call.request.path} on ${call.request.peer_http_port}`;
    expect({ what, status: res.status }).toEqual({ what, status: call.response.status });
    expect({ what, shape: shape(body) }).toEqual({ what, shape: shape(call.response.body) });
    if (call.response.status >= 400) expect(body.status.error).toBe(errorText ?? call.response.body.status.error);
    return body;
  }

  /** Places the collection's replicas as the real cluster had them. */
  function placeAsRecorded(name: string, answer: any) {
    const c = double.collections.get(name)!;
    const r = answer.response.body.result;
    const on = new Map<number, number[]>();
    for (const line of placement(r)) {
      const [shard, peer] = line.split(' ')[0].split('@').map(Number);
      on.set(shard, [...(on.get(shard) ?? []), peer]);
    }
    double.createCollection(name, {
      shardNumber: r.shard_count,
      replicationFactor: c.replicationFactor,
      placement: Array.from({ length: r.shard_count }, (_, s) => on.get(s) ?? []),
    });
  }

  it('answers GET /cluster on each peer as that peer, with one leader', async () => {
    for (const call of recorded('cluster-status-3-peers')) {
      const body = await replay(call);
      expect(body.result.peer_id).toBe(call.response.body.result.peer_id);
      expect(body.result.raft_info.role).toBe(call.response.body.result.raft_info.role);
      expect(body.result.raft_info.leader).toBe(call.response.body.result.raft_info.leader);
      expect(Object.keys(body.result.peers).sort()).toEqual(Object.keys(call.response.body.result.peers).sort());
    }
    for (const call of recorded('health')) await replay(call);
    await replay(recorded('root-version')[0]);
  });

  it('drains a peer as the real cluster did: refused removal, moves in flight, removal, no point lost', async () => {
    await replay(recorded('collection-create-rf1')[0]);
    const layout = recorded('collection-cluster-3-peers');
    placeAsRecorded('images', layout[0]);
    for (const call of recorded('points-upsert')) await replay(call);
    for (const call of recorded('points-count')) {
      expect((await replay(call)).result.count).toBe(call.response.body.result.count);
    }
    for (const call of layout) {
      const body = await replay(call);
      expect(placement(body.result).map(l => l)).toEqual(placement(call.response.body.result));
      expect(body.result.local_shards.length).toBe(call.response.body.result.local_shards.length);
    }
    await replay(recorded('peer-remove-refused-has-shards')[0]);

    const [move0, move3] = recorded('move-shard');
    const [during1, during2] = recorded('collection-cluster-during-transfer');
    for (const [move, during] of [
      [move0, during1],
      [move3, during2],
    ]) {
      await replay(move);
      const body = await replay(during);
      expect(body.result.shard_transfers).toEqual(during.response.body.result.shard_transfers);
      expect(placement(body.result)).toEqual(placement(during.response.body.result));
    }
    await replay(recorded('move-shard-error')[0]);

    double.completeTransfers();
    for (const call of recorded('collection-cluster-after-drain')) {
      const body = await replay(call);
      expect(placement(body.result)).toEqual(placement(call.response.body.result));
      expect(body.result.shard_transfers).toEqual([]);
    }
    await replay(recorded('peer-remove-ok')[0]);
    for (const call of recorded('cluster-status-after-peer-removal')) {
      const body = await replay(call);
      expect(Object.keys(body.result.peers).sort()).toEqual(Object.keys(call.response.body.result.peers).sort());
    }
    for (const call of recorded('points-count-after-drain')) {
      expect((await replay(call)).result.count).toBe(call.response.body.result.count);
    }
  });

  it('drops and adds replicas of an RF 2 collection as the real cluster did', async () => {
    await replay(recorded('collection-create-rf2')[0]);
    const [before] = recorded('collection-cluster-rf2');
    placeAsRecorded('rf2', before);
    expect(placement((await replay(before)).result)).toEqual(placement(before.response.body.result));
    await replay(recorded('drop-replica')[0]);
    const [after] = recorded('collection-cluster-rf2-after-drop');
    expect(placement((await replay(after)).result)).toEqual(placement(after.response.body.result));
    await replay(recorded('replicate-shard')[0]);
    double.completeTransfers();
    expect(placement((await replay(before)).result)).toEqual(placement(before.response.body.result));
  });

  it('answers errors and existence checks in the recorded shapes and words', async () => {
    for (const file of ['error-collection-not-found', 'error-bad-request', 'collection-exists-false']) {
      for (const call of recorded(file)) await replay(call);
    }
    await replay(recorded('collection-create-rf1')[0]);
    for (const call of [...recorded('collection-exists-true'), ...recorded('collections-list')]) {
      expect((await replay(call)).result).toEqual(call.response.body.result);
    }
  });

  it("snapshots a peer's own shards and recovers them as the real cluster did", async () => {
    await replay(recorded('collection-create-rf1')[0]);
    placeAsRecorded('images', recorded('collection-cluster-3-peers')[0]);
    for (const call of recorded('points-upsert')) await replay(call);
    const [create, list, del, count, recover, countAfter, wrongChecksum] = recorded('snapshot-roundtrip');
    const snap = (await replay(create)).result;
    expect(snap.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect((await replay(list)).result.map((x: any) => x.name)).toEqual([snap.name]);
    await replay(del);
    expect((await replay(count)).result.count).toBe(900);
    // The recorded location is the real peer's; here it is the double's.
    const location = `${double.urlOf(PEERS[16333])}/collections/images/snapshots/${snap.name}`;
    const at = (call: Call, checksum: string): Call => ({
      ...call,
      request: { ...call.request, body: { ...(call.request.body as object), location, checksum } },
    });
    await replay(at(recover, snap.checksum));
    // As recorded (966, not 1,000): only the deleted points of peer 0's shards come back.
    const peer0 = new Set<string>();
    for (const replicas of double.collections.get('images')!.shards.values()) {
      for (const key of replicas.get(PEERS[16333])?.points.keys() ?? []) peer0.add(key);
    }
    const back = Array.from({ length: 100 }, (_, i) => String(i)).filter(id => peer0.has(id)).length;
    const restored = (await replay(countAfter)).result.count;
    expect(back).toBeGreaterThan(0);
    expect(restored).toBe(900 + back);
    expect(restored).toBeLessThan(1000);
    const zeros = '0'.repeat(64);
    await replay(at(wrongChecksum, zeros), `Wrong input: Snapshot checksum mismatch: expected ${zeros}, got ${snap.checksum}`);
  });

  it('refuses snapshots it cannot download, in the recorded words', async () => {
    await replay(recorded('collection-create-rf1')[0]);
    const [missing] = recorded('snapshot-recover');
    const location = `${double.urlOf(PEERS[16333])}/collections/images/snapshots/images-gone.snapshot`;
    await replay(
      { ...missing, request: { ...missing.request, body: { ...(missing.request.body as object), location } } },
      `Wrong input: Failed to download snapshot from ${location}: status - 404 Not Found`,
    );
    await replay(recorded('snapshot-recover-error')[0]);
  });

  it('elects a new leader when the leader dies, as the recorded cluster did', async () => {
    const calls = recorded('leader-change');
    const before = calls.find(c => c.request.path === '/cluster')!.response.body.result;
    const after = calls.filter(c => c.request.path === '/cluster').pop()!.response.body.result;
    expect(after.raft_info.term).toBeGreaterThan(before.raft_info.term);
    const oldLeader = double.leader!;
    const termBefore = double.term;
    double.kill(oldLeader);
    const survivor = double.members().find(p => p.id !== oldLeader)!;
    const body = await (await fetch(`${double.urlOf(survivor)}/cluster`)).json();
    expect(shape(body)).toEqual(shape({ result: after, status: 'ok', time: 0 }));
    expect(body.result.raft_info.term).toBe(termBefore + 1);
    expect(body.result.raft_info.leader).not.toBe(oldLeader);
    // As recorded: the dead peer is still listed until someone removes it.
    expect(Object.keys(body.result.peers)).toContain(String(oldLeader));
  });
});
