import type { EventType } from './EventRecorder';

/**
 * An Event to record once the pass is done: type, reason, message.
 *
 * @public
 */
export type PendingEvent = [EventType, string, string];

/**
 * One "Created" Event for the children a pass created, not one per child:
 * `kubectl describe` stays readable and a new platform costs one Event, not six.
 *
 * @public
 */
export function foldCreated(events: PendingEvent[]): PendingEvent[] {
  const created = events.filter(e => e[1] === 'Created').map(e => e[2].replace(/^Created /, '')).sort();
  if (created.length < 2) return events;
  return [['Normal', 'Created', `Created ${created.join(', ')}`], ...events.filter(e => e[1] !== 'Created')];
}
