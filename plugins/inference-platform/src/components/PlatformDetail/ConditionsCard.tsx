import {
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  Typography,
} from '@material-ui/core';
import { InfoCard } from '@backstage/core-components';
import { Condition } from '@cv-platform/plugin-inference-platform-common';
import { Age } from '../Age';
import { ConditionStatusIcon } from './ConditionStatusIcon';

/** The operator's conditions with their reasons and transition times. */
export function ConditionsCard(props: { conditions?: Condition[] }) {
  const conditions = props.conditions ?? [];
  return (
    <InfoCard title="Conditions" noPadding={conditions.length > 0}>
      {conditions.length === 0 ? (
        <Typography variant="body2">
          No conditions yet: the operator has not reconciled this platform. If
          this lasts more than a minute, check that the operator runs (it is
          embedded in the Backstage backend).
        </Typography>
      ) : (
        <Table size="small" aria-label="Conditions">
          <TableHead>
            <TableRow>
              <TableCell>Type</TableCell>
              <TableCell>Status</TableCell>
              <TableCell>Reason</TableCell>
              <TableCell>Message</TableCell>
              <TableCell>Since</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {conditions.map(c => (
              <TableRow key={c.type} data-testid={`condition-${c.type}`}>
                <TableCell>{c.type}</TableCell>
                <TableCell>
                  <ConditionStatusIcon condition={c} />
                </TableCell>
                <TableCell>{c.reason}</TableCell>
                <TableCell>{c.message}</TableCell>
                <TableCell>
                  <Age time={c.lastTransitionTime} />
                </TableCell>
              </TableRow>
            ))}
          </TableBody>
        </Table>
      )}
    </InfoCard>
  );
}
