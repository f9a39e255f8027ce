import { useAtomValue } from 'jotai';
import { usePlatformsState } from '../../state';
import { formatRelative, formatUtc } from './format';

/** A time in UTC and relative to now ("in 5h", "3h ago"), on the page's shared clock. */
export function Timestamp(props: { time?: string; fallback?: string }) {
  const now = useAtomValue(usePlatformsState().nowAtom);
  const ms = props.time ? Date.parse(props.time) : NaN;
  if (Number.isNaN(ms)) return <span>{props.fallback ?? '—'}</span>;
  return (
    <span title={new Date(ms).toLocaleString()}>
      {formatUtc(ms)} ({formatRelative(ms, now)})
    </span>
  );
}
