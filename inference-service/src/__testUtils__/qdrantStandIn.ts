/* eslint-disable no-console */
/**
 * The Qdrant stand-in the local cluster's real node runs for `qdrant/qdrant`
 * images when no Qdrant binary is configured: the REST test double as a
 * process, configured the way Qdrant is (QDRANT__SERVICE__* variables; the
 * cluster flags are accepted and ignored). It is not Qdrant and says so.
 */
import { QdrantTestDouble } from './QdrantTestDouble';

const port = Number(process.env.QDRANT__SERVICE__HTTP_PORT ?? 6333);
const args = process.argv.slice(2);
// As Qdrant, it announces the URI its --uri flag gives (the operator reads
// the StatefulSet ordinal from it); the other cluster flags are ignored.
const uriAt = args.indexOf('--uri');
const double = new QdrantTestDouble({
  apiKey: process.env.QDRANT__SERVICE__API_KEY || undefined,
  standIn: true,
  host: '0.0.0.0',
  peerUri: uriAt >= 0 && args[uriAt + 1] ? `${args[uriAt + 1].replace(/\/$/, '')}/` : undefined,
});

double.start(port).then(
  () => {
    console.log(
      `Qdrant stand-in (the REST test double, not Qdrant: no Raft, no persistence, one peer) listening on :${port}; ignoring args: ${process.argv
        .slice(2)
        .join(' ')}`,
    );
  },
  err => {
    console.error(`Qdrant stand-in failed to start: ${err.message}`);
    process.exit(1);
  },
);
const stop = () => double.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
