import {
  StatusError,
  StatusOK,
  StatusPending,
  StatusRunning,
  StatusWarning,
} from '@backstage/core-components';
import { Condition } from '@cv-platform/plugin-inference-platform-common';

/** Conditions whose True means trouble or work in progress, not health. */
const NEGATIVE = new Set(['Degraded']);
const PROGRESS = new Set(['Progressing']);

export function ConditionStatusIcon(props: { condition: Condition }) {
  const { type, status } = props.condition;
  if (status === 'Unknown') return <StatusPending>Unknown</StatusPending>;
  if (PROGRESS.has(type)) {
    return status === 'True' ? (
      <StatusRunning>True</StatusRunning>
    ) : (
      <StatusOK>False</StatusOK>
    );
  }
  const good = NEGATIVE.has(type) ? status === 'False' : status === 'True';
  if (good) return <StatusOK>{status}</StatusOK>;
  return NEGATIVE.has(type) ? (
    <StatusWarning>{status}</StatusWarning>
  ) : (
    <StatusError>{status}</StatusError>
  );
}
