import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@material-ui/core';
import { InfoCard, Progress, StatusWarning } from '@backstage/core-components';
import { EventSummary } from '@cv-platform/plugin-inference-platform-common';
import { Age } from '../Age';

const MAX_EVENTS = 25;

/** Kubernetes events about the platform and its workloads, newest first. */
export function EventsCard(props: {
  events?: EventSummary[];
  loading: boolean;
}) {
  const events = [...(props.events ?? [])]
    .sort((a, b) =>
      (b.lastTimestamp ?? '').localeCompare(a.lastTimestamp ?? ''),
    )
    .slice(0, MAX_EVENTS);
  let body;
  if (props.loading && !props.events) body = <Progress />;
  else if (events.length === 0) {
    body = (
      <Typography variant="body2">
        No recent events. Kubernetes keeps events for about an hour.
      </Typography>
    );
  } else {
    body = (
      <Table size="small" aria-label="Recent events">
        <TableHead>
          <TableRow>
            <TableCell>Type</TableCell>
            <TableCell>Reason</TableCell>
            <TableCell>Object</TableCell>
            <TableCell>Message</TableCell>
            <TableCell>Count</TableCell>
            <TableCell>Last seen</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {events.map((e, i) => (
            <TableRow key={`${e.involvedObject.name}-${e.reason}-${i}`}>
              <TableCell>
                {e.type === 'Warning' ? (
                  <StatusWarning>Warning</StatusWarning>
                ) : (
                  e.type
                )}
              </TableCell>
              <TableCell>{e.reason}</TableCell>
              <TableCell>
                {e.involvedObject.kind}/{e.involvedObject.name}
              </TableCell>
              <TableCell>{e.message}</TableCell>
              <TableCell>{e.count}</TableCell>
              <TableCell>
                <Age time={e.lastTimestamp} />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    );
  }
  return (
    <InfoCard title="Recent events" noPadding={events.length > 0}>
      {body}
    </InfoCard>
  );
}
