import { CollectionLayout, PeerClusterStatus, QdrantPeerClient } from './QdrantPeerClient';

/** A pod of the Qdrant StatefulSet and where its REST API answers. */
export interface PeerPod {
  ordinal: number;
  pod: string;
  url: string;
}

export interface PeerObservation extends PeerPod {
  status?: PeerClusterStatus;
  error?: string;
}

export interface RaftMember {
  id: string;
  uri: string;
  /** The StatefulSet ordinal its URI names; undefined for a peer no pod of ours announced. */
  ordinal?: number;
}

export interface CollectionView {
  name: string;
  replicationFactor: number;
  layout: CollectionLayout;
}

/** The cluster as the operator can see it in one look. */
export interface ClusterView {
  peers: PeerObservation[];
  /** The peer whose view the rest comes from: the leader when it answers. */
  authority?: PeerObservation;
  members: RaftMember[];
  leader?: string;
  collections: CollectionView[];
  /** What could not be read (collections), beside the per-peer errors. */
  errors: string[];
}

/** Pods 0..count-1 of a StatefulSet and where each one's REST API answers. */
export function statefulSetPeers(statefulSet: string, count: number, url: (pod: string) => string): PeerPod[] {
  return Array.from({ length: count }, (_, ordinal) => {
    const pod = `${statefulSet}-${ordinal}`;
    return { ordinal, pod, url: url(pod) };
  });
}

/** Where cluster operations go: the leader if it is among the ordinals below `staying`, else the peer the view came from. */
export function operationTarget(view: ClusterView, staying = Infinity): PeerObservation | undefined {
  return view.peers.find(x => x.status?.peerId === view.leader && x.ordinal < staying) ?? view.authority;
}

/** `http://<pod>.<headless>...` -> the pod, for messages a person reads. */
export function podOfPeerUri(uri: string | undefined): string | undefined {
  return uri ? /^https?:\/\/([^.:/]+)/.exec(uri)?.[1] : undefined;
}

/** `<sts>-<n>` (a StatefulSet pod's name) -> n */
export function podOrdinal(pod: string): number {
  return Number(pod.slice(pod.lastIndexOf('-') + 1));
}

/** `http://<sts>-<n>.<headless>...` -> n */
export function ordinalOf(uri: string, statefulSet: string): number | undefined {
  // Called for every peer on every pass: plain string work, no RegExp built per call.
  const scheme = uri.indexOf('://');
  const host = uri.slice(scheme + 3);
  if ((scheme !== 4 && scheme !== 5) || !uri.startsWith('http') || !host.startsWith(`${statefulSet}-`)) return undefined;
  const dot = host.indexOf('.', statefulSet.length + 1);
  const digits = host.slice(statefulSet.length + 1, dot);
  return dot > statefulSet.length + 1 && /^\d+$/.test(digits) ? Number(digits) : undefined;
}

/**
 * Asks every peer for its view of the cluster (each answers with its own
 * peer id and role), then takes membership, leader and the collections'
 * shard placement from the leader (or, without one, the first peer that
 * answers). Never throws: what cannot be read is in the view's errors.
 */
export async function observeCluster(
  client: QdrantPeerClient,
  statefulSet: string,
  pods: PeerPod[],
  apiKey?: string,
): Promise<ClusterView> {
  const peers: PeerObservation[] = await Promise.all(
    pods.map(async pod => {
      try {
        return { ...pod, status: await client.cluster(pod.url, apiKey) };
      } catch (e) {
        return { ...pod, error: e instanceof Error ? e.message : String(e) };
      }
    }),
  );
  const answering = peers.filter(p => p.status);
  const authority =
    answering.find(p => p.status!.role === 'Leader') ?? answering.find(p => p.status!.leader) ?? answering[0];
  const view: ClusterView = { peers, authority, members: [], collections: [], errors: [] };
  if (!authority) return view;
  const s = authority.status!;
  view.leader = s.leader;
  view.members = Object.entries(s.peers)
    .map(([id, uri]) => ({ id, uri, ordinal: ordinalOf(uri, statefulSet) }))
    .sort((a, b) => (a.ordinal ?? Infinity) - (b.ordinal ?? Infinity) || a.id.localeCompare(b.id));
  try {
    const names = await client.collections(authority.url, apiKey);
    view.collections = await Promise.all(
      names.map(async name => ({
        name,
        replicationFactor: await client.replicationFactor(authority.url, name, apiKey),
        layout: await client.layout(authority.url, name, apiKey),
      })),
    );
  } catch (e) {
    view.errors.push(e instanceof Error ? e.message : String(e));
  }
  return view;
}
