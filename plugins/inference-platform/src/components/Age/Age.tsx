import { useAtomValue } from 'jotai';
import { usePlatformsState } from '../../state';
import { formatAge } from './formatAge';

/**
 * Relative age of a timestamp. It reads the page's shared clock atom, so the
 * minute tick re-renders these spans only, never whole rows.
 */
export function Age(props: { time?: string }) {
  const now = useAtomValue(usePlatformsState().nowAtom);
  const ms = props.time ? Date.parse(props.time) : NaN;
  if (Number.isNaN(ms)) return <span>—</span>;
  // A native title: this renders in every table row, where MUI Tooltips are costly.
  return (
    <span title={new Date(ms).toLocaleString()}>{formatAge(ms, now)}</span>
  );
}
