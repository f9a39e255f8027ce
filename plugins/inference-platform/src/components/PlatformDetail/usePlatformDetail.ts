import { useEffect, useRef, useState } from 'react';
import { useApi } from '@backstage/core-plugin-api';
import { ResponseError } from '@backstage/errors';
import {
  PlatformDetail,
  PlatformRef,
} from '@cv-platform/plugin-inference-platform-common';
import { inferencePlatformApiRef } from '../../api';

export interface PlatformDetailResult {
  detail?: PlatformDetail;
  error?: Error;
  notFound: boolean;
  loading: boolean;
}

/** At most one refetch per this interval, however fast the feed moves. */
const MIN_INTERVAL_MS = 1000;
/** Pods and events change without touching the platform object. */
const POLL_MS = 15_000;

/**
 * Pods and events of one platform from the REST API: fetched on mount, again
 * whenever the feed reports a new version of the platform (throttled), and
 * every 15 s for the pod and event changes the feed does not carry.
 */
export function usePlatformDetail(
  platformRef: PlatformRef,
  resourceVersion: string | undefined,
): PlatformDetailResult {
  const api = useApi(inferencePlatformApiRef);
  const { cluster, namespace, name } = platformRef;
  const [result, setResult] = useState<PlatformDetailResult>({
    notFound: false,
    loading: true,
  });
  const lastFetch = useRef(0);
  const inFlight = useRef(false);
  const pending = useRef<ReturnType<typeof setTimeout>>();
  const [tick, setTick] = useState(0);

  useEffect(() => {
    const timer = setInterval(() => setTick(t => t + 1), POLL_MS);
    return () => clearInterval(timer);
  }, []);

  useEffect(() => {
    let cancelled = false;
    const run = async () => {
      if (inFlight.current) {
        pending.current = setTimeout(run, MIN_INTERVAL_MS);
        return;
      }
      inFlight.current = true;
      lastFetch.current = Date.now();
      try {
        const detail = await api.getPlatform({ cluster, namespace, name });
        if (!cancelled) setResult({ detail, notFound: false, loading: false });
      } catch (e) {
        if (cancelled) return;
        const notFound = ResponseError.is(e) && e.statusCode === 404;
        setResult(prev => ({
          // Keep what we had: a failed refresh should not blank the page.
          detail: notFound ? undefined : prev.detail,
          error: notFound ? undefined : (e as Error),
          notFound,
          loading: false,
        }));
      } finally {
        inFlight.current = false;
      }
    };
    const wait = Math.max(0, lastFetch.current + MIN_INTERVAL_MS - Date.now());
    pending.current = setTimeout(run, wait);
    return () => {
      cancelled = true;
      clearTimeout(pending.current);
    };
  }, [api, cluster, namespace, name, resourceVersion, tick]);

  return result;
}
