import { useState } from 'react';
import { MenuItem, TextField } from '@material-ui/core';
import Alert from '@material-ui/lab/Alert';
import { CodeSnippet, InfoCard, Progress } from '@backstage/core-components';
import { useApi } from '@backstage/core-plugin-api';
import {
  ObjectRef,
  PlatformRef,
} from '@cv-platform/plugin-inference-platform-common';
import useAsync from 'react-use/esm/useAsync';
import { stringify } from 'yaml';
import { describeError, inferencePlatformApiRef } from '../../api';

const keyOf = (o?: ObjectRef) => (o ? `${o.kind}/${o.name}` : '');

/**
 * The platform and its children as YAML, one object at a time, read from
 * the API server when picked (as `kubectl get -o yaml`, without managedFields).
 */
export function YamlCard(props: {
  platformRef: PlatformRef;
  objects?: ObjectRef[];
}) {
  const { cluster, namespace, name } = props.platformRef;
  const api = useApi(inferencePlatformApiRef);
  const objects = props.objects ?? [];
  const [selected, setSelected] = useState<string>();
  const current = objects.find(o => keyOf(o) === selected) ?? objects[0];
  const object = useAsync(
    async () =>
      current
        ? api.getObject(
            { cluster, namespace, name },
            current.kind,
            current.name,
          )
        : undefined,
    [api, cluster, namespace, name, current?.kind, current?.name],
  );
  return (
    <InfoCard title="YAML">
      {current && (
        <>
          <TextField
            select
            id="yaml-object"
            label="Object"
            value={keyOf(current)}
            onChange={e => setSelected(e.target.value)}
            margin="dense"
            fullWidth
          >
            {objects.map(o => (
              <MenuItem key={keyOf(o)} value={keyOf(o)}>
                {o.kind} {o.name}
              </MenuItem>
            ))}
          </TextField>
          {object.loading && <Progress />}
          {object.error && (
            <Alert severity="error">{describeError(object.error)}</Alert>
          )}
          {object.value !== undefined && !object.loading && (
            <div data-testid="yaml-text">
              <CodeSnippet
                language="yaml"
                text={stringify(object.value)}
                showCopyCodeButton
              />
            </div>
          )}
        </>
      )}
    </InfoCard>
  );
}
