import { useCallback, useState } from 'react';
import { TextField } from '@material-ui/core';
import { useApi } from '@backstage/core-plugin-api';
import {
  BackupRecord,
  COLLECTION_NAME_PATTERN,
  InferencePlatformV1beta1,
  InferencePlatformRestore,
} from '@cv-platform/plugin-inference-platform-common';
import { inferencePlatformApiRef } from '../../api';
import { platformRefOf } from '../../state';
import { ActionDialog } from '../PlatformActions/ActionDialog';
import { useSubmit } from '../PlatformActions/useSubmit';
import { formatUtc } from './format';

function parseCollections(
  text: string,
  available: string[] | undefined,
): { collections?: string[]; problem?: string } {
  const names = text
    .split(/[\s,]+/)
    .map(s => s.trim())
    .filter(Boolean);
  if (names.length === 0) return {};
  const bad = names.filter(n => !COLLECTION_NAME_PATTERN.test(n));
  if (bad.length) {
    return {
      problem: `Not a collection name: ${bad.join(
        ', ',
      )} (letters, digits, _ and - only)`,
    };
  }
  const missing = available ? names.filter(n => !available.includes(n)) : [];
  if (missing.length) {
    return { problem: `Not in this backup: ${missing.join(', ')}` };
  }
  return { collections: [...new Set(names)] };
}

/** Confirms a restore from one backup, optionally of some collections only. */
export function RestoreDialog(props: {
  platform: InferencePlatformV1beta1;
  /** Absent: the default cluster. */
  cluster?: string;
  backup: BackupRecord;
  open: boolean;
  onClose(): void;
  onCreated(restore: InferencePlatformRestore): void;
}) {
  const { platform, cluster, backup, onClose, onCreated } = props;
  const api = useApi(inferencePlatformApiRef);
  const available = backup.collections?.map(c => c.name);
  const [text, setText] = useState('');
  const parsed = parseCollections(text, available);

  const action = useCallback(
    () =>
      api.createRestore(platformRefOf(platform, cluster), {
        backupId: backup.id,
        ...(parsed.collections ? { collections: parsed.collections } : {}),
      }),
    [api, platform, cluster, backup.id, parsed.collections],
  );
  const done = useCallback(
    (restore: InferencePlatformRestore) => {
      onCreated(restore);
      onClose();
    },
    [onCreated, onClose],
  );
  const { busy, error, submit } = useSubmit(action, done);
  const taken = Date.parse(backup.startTime);
  const every = available?.length
    ? `every collection in it (${available.join(', ')})`
    : 'every collection in it';

  return (
    <ActionDialog
      open={props.open}
      onClose={onClose}
      id="restore"
      title={
        <>
          Restore {platform.metadata.name} from backup {backup.id}
        </>
      }
      description={`Each Qdrant peer recovers its snapshot from the backup taken ${
        Number.isNaN(taken) ? backup.startTime : formatUtc(taken)
      }. The restored collections lose every write made since then. Leave the field empty to restore ${every}.`}
      busy={busy}
      error={error}
      confirmLabel="Restore"
      busyLabel="Starting restore…"
      confirmColor="secondary"
      confirmDisabled={Boolean(parsed.problem)}
      onConfirm={submit}
      fullWidth
    >
      <TextField
        id="restore-collections"
        label="Collections (optional)"
        fullWidth
        margin="dense"
        value={text}
        onChange={e => setText(e.target.value)}
        error={Boolean(parsed.problem)}
        helperText={parsed.problem ?? 'Comma-separated names; empty: all'}
      />
    </ActionDialog>
  );
}
