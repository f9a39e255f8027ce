import { useCallback, useEffect, useState } from 'react';
import { useApi } from '@backstage/core-plugin-api';
import {
  InferencePlatformRestore,
  PlatformRef,
} from '@cv-platform/plugin-inference-platform-common';
import { inferencePlatformApiRef } from '../../api';

/** A running restore moves fast; finished ones do not move at all. */
const ACTIVE_POLL_MS = 5_000;
const IDLE_POLL_MS = 30_000;

const finished = (r: InferencePlatformRestore) =>
  r.status?.phase === 'Succeeded' || r.status?.phase === 'Failed';

export interface RestoresResult {
  restores?: InferencePlatformRestore[];
  error?: Error;
  /** Fetches again now, e.g. after creating one. */
  refresh(): void;
}

/**
 * The platform's InferencePlatformRestores from the REST API (the live feed
 * carries platforms only): fetched on mount, when the platform changes,
 * after `refresh()`, and on a timer that is quicker while one is running.
 */
export function useRestores(
  platformRef: PlatformRef,
  options: { enabled: boolean; resourceVersion?: string },
): RestoresResult {
  const api = useApi(inferencePlatformApiRef);
  const [restores, setRestores] = useState<InferencePlatformRestore[]>();
  const [error, setError] = useState<Error>();
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick(t => t + 1), []);
  const active = Boolean(restores?.some(r => !finished(r)));
  const { enabled, resourceVersion } = options;
  const { cluster, namespace, name } = platformRef;

  useEffect(() => {
    if (!enabled) return undefined;
    const timer = setInterval(refresh, active ? ACTIVE_POLL_MS : IDLE_POLL_MS);
    return () => clearInterval(timer);
  }, [enabled, active, refresh]);

  useEffect(() => {
    if (!enabled) return undefined;
    let cancelled = false;
    api.listRestores({ cluster, namespace, name }).then(
      items => {
        if (cancelled) return;
        setRestores(items);
        setError(undefined);
      },
      e => {
        // Keep the last list: a failed refresh should not blank it.
        if (!cancelled) setError(e as Error);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [api, cluster, namespace, name, enabled, resourceVersion, tick]);

  return { restores, error, refresh };
}
