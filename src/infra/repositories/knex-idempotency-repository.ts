import type { Db } from '../db/db';
import type {
  IdempotencyRecord,
  IdempotencyRepository,
  IdempotencyState,
  IdempotentAnswer,
} from '../../core/order/order';
import { insertUnlessPresent } from './insert-unless-present';

interface IdempotencyRow {
  reseller_id: string;
  idem_key: string;
  fingerprint: string;
  state: string;
  order_id: string | null;
  answer: string | null;
  created_at: number | string;
  expires_at: number | string;
}

const toRecord = (row: IdempotencyRow): IdempotencyRecord => ({
  resellerId: row.reseller_id,
  key: row.idem_key,
  fingerprint: row.fingerprint,
  state: row.state as IdempotencyState,
  orderId: row.order_id,
  answer: row.answer ? (JSON.parse(row.answer) as IdempotentAnswer) : null,
  createdAt: new Date(Number(row.created_at)),
  expiresAt: new Date(Number(row.expires_at)),
});

export class KnexIdempotencyRepository implements IdempotencyRepository {
  constructor(private readonly db: Db) {}

  async find(resellerId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const row = await this.db<IdempotencyRow>('idempotency_keys')
      .where({ reseller_id: resellerId, idem_key: key })
      .first();
    return row && toRecord(row);
  }

  async insert(r: IdempotencyRecord): Promise<boolean> {
    return insertUnlessPresent(
      this.db('idempotency_keys').insert({
        reseller_id: r.resellerId,
        idem_key: r.key,
        fingerprint: r.fingerprint,
        state: r.state,
        order_id: r.orderId,
        answer: r.answer ? JSON.stringify(r.answer) : null,
        created_at: r.createdAt.getTime(),
        expires_at: r.expiresAt.getTime(),
      }),
    );
  }

  async deleteExpired(resellerId: string, key: string, now: Date): Promise<boolean> {
    const deleted = await this.db('idempotency_keys')
      .where({ reseller_id: resellerId, idem_key: key })
      .andWhere('expires_at', '<', now.getTime())
      .delete();
    return deleted > 0;
  }

  async finishForOrder(orderId: string, answer: IdempotentAnswer): Promise<void> {
    await this.db('idempotency_keys')
      .where({ order_id: orderId, state: 'in_flight' })
      .update({ state: 'done', answer: JSON.stringify(answer) });
  }

  async purgeExpired(now: Date): Promise<number> {
    // An in-flight key is never purged: its order is still pending and the key must keep refusing retries.
    return this.db('idempotency_keys').where('expires_at', '<', now.getTime()).andWhere({ state: 'done' }).delete();
  }
}
