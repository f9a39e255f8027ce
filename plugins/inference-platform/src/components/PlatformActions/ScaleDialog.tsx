import { useCallback, useState } from 'react';
import { TextField } from '@material-ui/core';
import { useApi } from '@backstage/core-plugin-api';
import {
  InferencePlatformV1beta1,
  PatchPlatformRequest,
} from '@cv-platform/plugin-inference-platform-common';
import { inferencePlatformApiRef } from '../../api';
import { platformRefOf } from '../../state';
import { useSubmit } from './useSubmit';
import { ActionDialog } from './ActionDialog';

/** Same bounds as the CRD schema, so most mistakes show before submitting. */
const QDRANT = { min: 1, max: 100 };
const INFERENCE = { min: 0, max: 1000 };

function parseReplicas(text: string, bounds: { min: number; max: number }) {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text);
  return n >= bounds.min && n <= bounds.max ? n : undefined;
}

export function ScaleDialog(props: {
  platform: InferencePlatformV1beta1;
  /** Absent: the default cluster. */
  cluster?: string;
  open: boolean;
  onClose(): void;
  onConfirmed(platform: InferencePlatformV1beta1): void;
}) {
  const { platform, cluster, onClose, onConfirmed } = props;
  const api = useApi(inferencePlatformApiRef);
  const currentQdrant = platform.spec.qdrant.replicas ?? 1;
  const currentInference = platform.spec.inference.replicas ?? 1;
  const [qdrantText, setQdrantText] = useState(String(currentQdrant));
  const [inferenceText, setInferenceText] = useState(String(currentInference));
  const qdrant = parseReplicas(qdrantText, QDRANT);
  const inference = parseReplicas(inferenceText, INFERENCE);
  const changed = qdrant !== currentQdrant || inference !== currentInference;

  const action = useCallback(() => {
    const patch: PatchPlatformRequest = {};
    if (qdrant !== currentQdrant) patch.qdrant = { replicas: qdrant };
    if (inference !== currentInference)
      patch.inference = { replicas: inference };
    return api.patchPlatform(platformRefOf(platform, cluster), patch);
  }, [
    api,
    platform,
    cluster,
    qdrant,
    inference,
    currentQdrant,
    currentInference,
  ]);
  const done = useCallback(
    (updated: InferencePlatformV1beta1) => {
      onConfirmed(updated);
      onClose();
    },
    [onConfirmed, onClose],
  );
  const { busy, error, submit } = useSubmit(action, done);

  return (
    <ActionDialog
      open={props.open}
      onClose={onClose}
      id="scale"
      title={<>Scale {platform.metadata.name}</>}
      description="Qdrant peers hold the vectors: scaling them rebalances shards. Inference servers are stateless and can go to zero."
      busy={busy}
      error={error}
      confirmLabel="Scale"
      busyLabel="Scaling…"
      confirmColor="primary"
      confirmDisabled={
        !changed || qdrant === undefined || inference === undefined
      }
      onConfirm={submit}
    >
      <TextField
        id="scale-qdrant-replicas"
        label="Qdrant replicas"
        type="number"
        fullWidth
        margin="dense"
        value={qdrantText}
        onChange={e => setQdrantText(e.target.value)}
        error={qdrant === undefined}
        helperText={`${QDRANT.min}–${QDRANT.max}, now ${currentQdrant}`}
        inputProps={{ min: QDRANT.min, max: QDRANT.max }}
      />
      <TextField
        id="scale-inference-replicas"
        label="Inference replicas"
        type="number"
        fullWidth
        margin="dense"
        value={inferenceText}
        onChange={e => setInferenceText(e.target.value)}
        error={inference === undefined}
        helperText={`${INFERENCE.min}–${INFERENCE.max}, now ${currentInference}`}
        inputProps={{ min: INFERENCE.min, max: INFERENCE.max }}
      />
    </ActionDialog>
  );
}
