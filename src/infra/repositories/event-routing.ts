import type { Db } from '../db/db';

/**
 * Raises the version of what the outbox dispatcher routes by (`event_routing`), in the caller's
 * transaction: every process's cached endpoints and thresholds are read again at its next dispatch.
 */
export async function raiseRoutingVersion(db: Db): Promise<void> {
  await db('event_routing')
    .where({ id: 1 })
    .update({ version: db.raw('version + 1') });
}

export async function routingVersion(db: Db): Promise<number> {
  const row = await db('event_routing').where({ id: 1 }).first<{ version: number | string } | undefined>('version');
  return Number(row?.version ?? 0);
}
