import {
  createContext,
  ReactNode,
  useContext,
  useEffect,
  useState,
} from 'react';
import { Provider } from 'jotai';
import { useApi } from '@backstage/core-plugin-api';
import { inferencePlatformApiRef } from '../api';
import { PlatformsState } from './PlatformsState';
import { createFeedBatcher } from './createFeedBatcher';
import { PlatformKey } from './platformKey';

const PlatformsStateContext = createContext<PlatformsState | undefined>(
  undefined,
);

/**
 * Gives its subtree a fresh PlatformsState (and with it a fresh Jotai store)
 * fed by the backend's SSE feed for as long as it is mounted.
 */
export function PlatformsStateProvider(props: {
  children: ReactNode;
  /** Keep only these platforms (a detail page or entity card follows one). */
  only?: PlatformKey;
  /** A state built by the caller, e.g. a test that inspects it. */
  state?: PlatformsState;
}) {
  const { only } = props;
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

function usePlatformFeed(state: PlatformsState, only?: PlatformKey) {
  const api = useApi(inferencePlatformApiRef);
  useEffect(() => {
    const controller = new AbortController();
    const batcher = createFeedBatcher(state);
    api.streamEvents(
      {
        onSnapshot: items => batcher.snapshot(items),
        onChange: event => batcher.change(event),
        onStatus: status => state.setConnection(status),
      },
      controller.signal,
      // A page that follows one platform asks the backend for that one only.
      only ? { platform: only } : undefined,
    );
    return () => {
      controller.abort();
      batcher.dispose();
    };
  }, [api, state, only]);
}
