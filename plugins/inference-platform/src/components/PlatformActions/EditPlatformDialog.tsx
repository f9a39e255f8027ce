import { useCallback, useState } from 'react';
import { TextField } from '@material-ui/core';
import { useApi } from '@backstage/core-plugin-api';
import {
  InferencePlatformV1beta1,
  MODEL_URL_PATTERN,
  PatchPlatformRequest,
  QDRANT_VERSION_PATTERN,
} from '@cv-platform/plugin-inference-platform-common';
import { inferencePlatformApiRef } from '../../api';
import { platformRefOf } from '../../state';
import { useSubmit } from './useSubmit';
import { ActionDialog } from './ActionDialog';

const modelUrlPattern = new RegExp(MODEL_URL_PATTERN);
const versionPattern = new RegExp(QDRANT_VERSION_PATTERN);

/** Changes the model URL and/or the Qdrant version. */
export function EditPlatformDialog(props: {
  platform: InferencePlatformV1beta1;
  /** Absent: the default cluster. */
  cluster?: string;
  open: boolean;
  onClose(): void;
  onConfirmed(platform: InferencePlatformV1beta1): void;
}) {
  const { platform, cluster, onClose, onConfirmed } = props;
  const api = useApi(inferencePlatformApiRef);
  const currentModel = platform.spec.inference.model.url;
  const currentVersion = platform.spec.qdrant.version;
  const [modelUrl, setModelUrl] = useState(currentModel);
  const [version, setVersion] = useState(currentVersion);
  const modelValid = modelUrlPattern.test(modelUrl.trim());
  const versionValid = versionPattern.test(version.trim());
  const changed =
    modelUrl.trim() !== currentModel || version.trim() !== currentVersion;

  const action = useCallback(() => {
    const patch: PatchPlatformRequest = {};
    if (modelUrl.trim() !== currentModel)
      patch.inference = { model: { url: modelUrl.trim() } };
    if (version.trim() !== currentVersion)
      patch.qdrant = { version: version.trim() };
    return api.patchPlatform(platformRefOf(platform, cluster), patch);
  }, [api, platform, cluster, modelUrl, version, currentModel, currentVersion]);
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
      id="edit"
      fullWidth
      title="Change model or Qdrant version"
      description="A new model URL rolls the inference servers one by one; each loads the model before it takes traffic. A new Qdrant version rolls the peers one by one."
      busy={busy}
      error={error}
      confirmLabel="Save"
      busyLabel="Saving…"
      confirmColor="primary"
      confirmDisabled={!changed || !modelValid || !versionValid}
      onConfirm={submit}
    >
      <TextField
        id="edit-model-url"
        label="Model URL"
        fullWidth
        margin="dense"
        value={modelUrl}
        onChange={e => setModelUrl(e.target.value)}
        error={!modelValid}
        helperText="s3://, http(s)://, pvc://<claim>/<path> or file://"
      />
      <TextField
        id="edit-qdrant-version"
        label="Qdrant version"
        fullWidth
        margin="dense"
        value={version}
        onChange={e => setVersion(e.target.value)}
        error={!versionValid}
        helperText="A Qdrant release such as v1.9.0"
      />
    </ActionDialog>
  );
}
