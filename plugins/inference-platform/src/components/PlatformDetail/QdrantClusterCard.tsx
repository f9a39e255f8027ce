import { List, ListItem, ListItemText, Typography } from '@material-ui/core';
import {
  InfoCard,
  StatusError,
  StatusOK,
  StructuredMetadataTable,
} from '@backstage/core-components';
import { QdrantClusterInfo } from '@cv-platform/plugin-inference-platform-common';
import { Age } from '../Age';

/** What the operator last learned from Qdrant's cluster API. */
export function QdrantClusterCard(props: { cluster?: QdrantClusterInfo }) {
  const { cluster } = props;
  if (!cluster) {
    return (
      <InfoCard title="Qdrant cluster">
        <Typography variant="body2">
          No cluster information yet: the operator reports it once a Qdrant peer
          answers on its cluster API.
        </Typography>
      </InfoCard>
    );
  }
  const peers = cluster.peers ?? [];
  return (
    <InfoCard title="Qdrant cluster">
      <StructuredMetadataTable
        dense
        metadata={{
          Reachable: cluster.reachable ? (
            <StatusOK>Yes</StatusOK>
          ) : (
            <StatusError>No</StatusError>
          ),
          'Peer ID': cluster.peerId ?? '—',
          'Raft leader': cluster.raftLeader ?? '—',
          'Raft term': cluster.raftTerm ?? '—',
          'Pending operations': cluster.pendingOperations ?? '—',
          'Last checked': <Age time={cluster.lastChecked} />,
          ...(cluster.message ? { Message: cluster.message } : {}),
        }}
      />
      <Typography variant="subtitle2">Peers ({peers.length})</Typography>
      <List dense>
        {peers.map(p => (
          <ListItem key={p.id}>
            <ListItemText
              primary={`${p.id}${
                p.id === cluster.raftLeader ? ' (leader)' : ''
              }`}
              secondary={p.uri}
            />
          </ListItem>
        ))}
      </List>
    </InfoCard>
  );
}
