import { Logger } from '../logger';
import { PlannedOperation } from './planScaleDown';
import { QdrantPeerClient } from './QdrantPeerClient';

/**
 * Sends planned shard operations to one peer (the leader), one after the
 * other (Qdrant serialises cluster changes through Raft anyway), logging each
 * that started. A refused one does not stop the rest: it is returned as
 * "<description>: <reason>" for the caller's Warning Event.
 */
export async function startShardOperations(
  client: QdrantPeerClient,
  url: string,
  ops: PlannedOperation[],
  apiKey: string | undefined,
  logger: Logger,
  fields: Record<string, unknown>,
): Promise<{ started: PlannedOperation[]; failed: string[] }> {
  const started: PlannedOperation[] = [];
  const failed: string[] = [];
  for (const op of ops) {
    try {
      await client.operate(url, op.collection, op.op, apiKey);
      started.push(op);
      logger.info('Started shard operation', { ...fields, operation: op.description });
    } catch (e) {
      failed.push(`${op.description}: ${e instanceof Error ? e.message : e}`);
    }
  }
  return { started, failed };
}
