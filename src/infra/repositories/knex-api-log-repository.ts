import type { Knex } from 'knex';
import {
  API_LOG_BATCH_SIZE,
  type ApiLogEntry,
  type ApiLogQuery,
  type ApiLogRepository,
} from '../../core/api-log/api-log';
import { type DirectWrites, knexPools } from '../db/driver-pools';

export interface ApiLogRow {
  reseller_id: string;
  at: number | string;
  method: string;
  route: string;
  domain: string | null;
  status: number;
  duration_ms: number;
  error: string | null;
  request_id: string;
  client_ip: string | null;
  request_body: string | null;
  reply_body: string | null;
}

/** A row of `api_log` as an entry (the console's API log reads the same rows with the reseller's email). */
export function apiLogEntryOf(row: ApiLogRow): ApiLogEntry {
  return {
    resellerId: row.reseller_id,
    at: new Date(Number(row.at)),
    method: row.method,
    route: row.route,
    domain: row.domain,
    status: Number(row.status),
    durationMs: Number(row.duration_ms),
    error: row.error,
    requestId: row.request_id,
    clientIp: row.client_ip,
    requestBody: row.request_body,
    replyBody: row.reply_body,
  };
}

const COLUMNS =
  'reseller_id, at, method, route, domain, status, duration_ms, error, request_id, client_ip, request_body, reply_body';

/** The multi-row INSERT of `rows` entries, with the driver's placeholders. */
function insertText(rows: number): string {
  return `insert into api_log (${COLUMNS}) values ${new Array(rows).fill('(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`;
}

export class KnexApiLogRepository implements ApiLogRepository {
  /** The statement of a full batch, made once: it is sent prepared (`writeRepeated`). */
  private readonly fullBatch: string;

  /**
   * `writes`: the pools' writes, for the batch insert (src/infra/db/driver-pools.ts); knex by default.
   * `fullBatchRows`: the buffer's batch size. A batch of exactly that many entries, nearly every
   * batch under load, is one prepared statement, so that MariaDB parses it once per connection
   * rather than thousands of literals per batch; any other count is sent as plain text (one
   * statement text prepared per connection, never one per count).
   */
  constructor(
    private readonly db: Knex,
    private readonly writes: DirectWrites = knexPools(db).writes,
    private readonly fullBatchRows = API_LOG_BATCH_SIZE,
  ) {
    this.fullBatch = insertText(fullBatchRows);
  }

  /** One multi-row INSERT, built by hand: knex's builder costs more per row than the write itself. */
  async insertMany(entries: readonly ApiLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const bindings: Array<string | number | null> = [];
    for (const e of entries) {
      bindings.push(
        e.resellerId,
        e.at.getTime(),
        e.method.slice(0, 8),
        e.route.slice(0, 128),
        e.domain?.slice(0, 253) ?? null,
        e.status,
        Math.round(e.durationMs),
        e.error,
        e.requestId.slice(0, 64),
        e.clientIp?.slice(0, 64) ?? null,
        e.requestBody ?? null,
        e.replyBody ?? null,
      );
    }
    if (entries.length === this.fullBatchRows) await this.writes.writeRepeated(this.fullBatch, bindings);
    else await this.writes.write(insertText(entries.length), bindings);
  }

  async find(query: ApiLogQuery): Promise<ApiLogEntry[]> {
    const q = this.db<ApiLogRow>('api_log')
      .where({ reseller_id: query.resellerId })
      .orderBy([
        { column: 'at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(query.limit);
    if (query.since) q.andWhere('at', '>=', query.since.getTime());
    if (query.domain) q.andWhere({ domain: query.domain });
    return (await q).map(apiLogEntryOf);
  }

  async purge(before: Date, limit: number): Promise<number> {
    // Chunked by id: SQLite has no DELETE … LIMIT, and MariaDB no LIMIT inside an IN subquery.
    const ids = (
      await this.db('api_log').where('at', '<', before.getTime()).orderBy('id').limit(limit).select('id')
    ).map((r: { id: number | string }) => r.id);
    if (ids.length === 0) return 0;
    return this.db('api_log').whereIn('id', ids).del();
  }
}
