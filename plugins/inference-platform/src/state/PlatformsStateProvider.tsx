import {
  createContext,
  ReactNode,
  useContext,
  useEffect,
  useState,
} from 'react';
import { Provider } from 'jotai';
import { useApi } from '@backstage/core-plugin-api';
import {
  ClusterInfo,
  PlatformRef,
} from '@cv-platform/plugin-inference-platform-common';
import {
  ConnectionStatus,
  FeedScope,
  InferencePlatformApi,
  inferencePlatformApiRef,
} from '../api';
import { PlatformsState } from './PlatformsState';
import { createFeedBatcher } from './createFeedBatcher';
import { parsePlatformKey, PlatformKey, refKey } from './platformKey';

const PlatformsStateContext = createContext<PlatformsState | undefined>(
  undefined,
);

/**
 * Gives its subtree a fresh PlatformsState (and with it a fresh Jotai store)
 * fed by the backend's SSE feed for as long as it is mounted: one stream per
 * available cluster for a page of all platforms (a single stream without a
 * cluster when the backend has one), one stream of one platform's cluster
 * for a page that follows that platform.
 */
export function PlatformsStateProvider(props: {
  children: ReactNode;
  /** Keep only this platform (a detail page or entity card follows one). */
  only?: PlatformRef;
  /** A state built by the caller, e.g. a test that inspects it. */
  state?: PlatformsState;
}) {
  // A string, so that a new but equal ref object does not restart the feed.
  const only = props.only ? refKey(props.only) : undefined;
  const [state] = useState(
    () =>
      props.state ?? new PlatformsState(only ? key => key === only : undefined),
  );
  usePlatformFeed(state, only);
  useClock(state);
  return (
    <PlatformsStateContext.Provider value={state}>
      <Provider store={state.store}>{props.children}</Provider>
    </PlatformsStateContext.Provider>
  );
}

export function usePlatformsState(): PlatformsState {
  const state = useContext(PlatformsStateContext);
  if (!state)
    throw new Error(
      'usePlatformsState needs a surrounding PlatformsStateProvider',
    );
  return state;
}

/** Relative ages only need minute precision. */
const CLOCK_TICK_MS = 30_000;

function useClock(state: PlatformsState) {
  useEffect(() => {
    const timer = setInterval(
      () => state.store.set(state.nowAtom, Date.now()),
      CLOCK_TICK_MS,
    );
    return () => clearInterval(timer);
  }, [state]);
}

const SEVERITY: Record<ConnectionStatus['state'], number> = {
  live: 0,
  connecting: 1,
  reconnecting: 2,
  offline: 3,
};

/**
 * One status for several streams: the worst of them, its error naming the
 * cluster. `fatal` only when every stream is: rows of the others still come.
 */
export function combineStatuses(
  statuses: ReadonlyMap<string, ConnectionStatus>,
): ConnectionStatus | undefined {
  let worst: [string, ConnectionStatus] | undefined;
  for (const entry of statuses) {
    if (!worst || SEVERITY[entry[1].state] > SEVERITY[worst[1].state])
      worst = entry;
  }
  if (!worst || statuses.size === 1) return worst?.[1];
  const [cluster, status] = worst;
  const allFatal = [...statuses.values()].every(s => s.fatal);
  return {
    ...status,
    error: status.error ? `cluster ${cluster}: ${status.error}` : undefined,
    fatal: allFatal || undefined,
  };
}

/** The clusters to follow: undefined for one stream without a cluster. */
async function clustersToFollow(
  api: InferencePlatformApi,
): Promise<ClusterInfo[] | undefined> {
  try {
    const clusters = await api.listClusters();
    return clusters.length > 1 ? clusters : undefined;
  } catch {
    // A backend predating GET /clusters, or one that cannot answer it: its
    // default cluster is all the feed can show.
    return undefined;
  }
}

function usePlatformFeed(state: PlatformsState, only?: PlatformKey) {
  const api = useApi(inferencePlatformApiRef);
  useEffect(() => {
    const controller = new AbortController();
    const batcher = createFeedBatcher(state);
    const statuses = new Map<string, ConnectionStatus>();

    const follow = (scope: FeedScope | undefined, multi: boolean) => {
      const cluster = scope?.cluster;
      void api.streamEvents(
        {
          onSnapshot: items => batcher.snapshot(items, cluster),
          onChange: event =>
            batcher.change({
              type: event.type,
              platform: event.platform,
              cluster,
            }),
          onStatus: status => {
            if (!multi) {
              state.setConnection(status);
              return;
            }
            statuses.set(cluster ?? '', status);
            const combined = combineStatuses(statuses);
            if (combined) state.setConnection(combined);
          },
        },
        controller.signal,
        scope,
      );
    };

    if (only) {
      // A page that follows one platform asks the backend for that one only.
      const ref = parsePlatformKey(only);
      follow(
        {
          ...(ref.cluster ? { cluster: ref.cluster } : {}),
          platform: `${ref.namespace}/${ref.name}`,
        },
        false,
      );
    } else {
      void clustersToFollow(api).then(clusters => {
        if (controller.signal.aborted) return;
        if (!clusters) {
          follow(undefined, false);
          return;
        }
        state.store.set(state.clustersAtom, clusters);
        const available = clusters.filter(c => c.available);
        if (available.length === 0) {
          state.setConnection({
            state: 'offline',
            attempt: 0,
            fatal: true,
            error: `None of the clusters is available (${clusters
              .map(c => c.name)
              .join(', ')}).`,
          });
          return;
        }
        for (const c of available) follow({ cluster: c.name }, true);
      });
    }
    return () => {
      controller.abort();
      batcher.dispose();
    };
  }, [api, state, only]);
}
