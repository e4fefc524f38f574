import type { Db } from '../db/db';
import type { AuditEntry, AuditLogRepository, AuditQuery, Actor } from '../../core/audit/audit-log';

interface AuditRow {
  id: string;
  at: number | string;
  actor_kind: string;
  actor_id: string | null;
  actor_label: string;
  action: string;
  subject_kind: string | null;
  subject_id: string | null;
  before: string | null;
  after: string | null;
  client_ip: string | null;
  request_id: string | null;
}

/** The audit log's table: insert and select only (retention deletes by age). */
export class KnexAuditLogRepository implements AuditLogRepository {
  constructor(private readonly db: Db) {}

  async append(entry: AuditEntry): Promise<void> {
    await this.db<AuditRow>('audit_log').insert({
      id: entry.id,
      at: entry.at.getTime(),
      actor_kind: entry.actor.kind,
      actor_id: entry.actor.id,
      actor_label: entry.actor.label.slice(0, 254),
      action: entry.action.slice(0, 64),
      subject_kind: entry.subject?.kind.slice(0, 32) ?? null,
      subject_id: entry.subject?.id.slice(0, 254) ?? null,
      before: entry.before === null ? null : JSON.stringify(entry.before),
      after: entry.after === null ? null : JSON.stringify(entry.after),
      client_ip: entry.actor.clientIp?.slice(0, 64) ?? null,
      request_id: entry.actor.requestId?.slice(0, 64) ?? null,
    });
  }

  async find(query: AuditQuery): Promise<AuditEntry[]> {
    const q = this.db<AuditRow>('audit_log')
      .orderBy([
        { column: 'at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(query.limit);
    if (query.actorKind) q.where({ actor_kind: query.actorKind });
    if (query.actorId) q.where({ actor_id: query.actorId });
    // '!' as the LIKE escape: SQLite has no default escape character, and a backslash is spelt differently in each dialect.
    if (query.actionPrefix) q.whereRaw("action like ? escape '!'", [`${likeEscaped(query.actionPrefix)}%`]);
    // In the query, not after it: a page of 50 is 50 entries of this actor, and the keyset cursor stays right.
    if (query.actorLabel)
      q.whereRaw("lower(actor_label) like ? escape '!'", [`%${likeEscaped(query.actorLabel.toLowerCase())}%`]);
    if (query.subject) q.where({ subject_kind: query.subject.kind, subject_id: query.subject.id });
    if (query.since) q.where('at', '>=', query.since.getTime());
    if (query.until) q.where('at', '<', query.until.getTime());
    if (query.before) {
      const { at, id } = query.before;
      q.where((w) =>
        w.where('at', '<', at.getTime()).orWhere((x) => x.where('at', '=', at.getTime()).andWhere('id', '<', id)),
      );
    }
    return (await q).map(toEntry);
  }

  async purge(before: Date, limit: number): Promise<number> {
    const ids = (
      await this.db('audit_log').where('at', '<', before.getTime()).orderBy('at').limit(limit).select('id')
    ).map((r: { id: string }) => r.id);
    if (ids.length === 0) return 0;
    return this.db('audit_log').whereIn('id', ids).delete();
  }
}

const likeEscaped = (text: string) => text.replace(/[!%_]/g, '!$&');

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: new Date(Number(row.at)),
    actor: {
      kind: row.actor_kind as Actor['kind'],
      id: row.actor_id,
      label: row.actor_label,
      clientIp: row.client_ip,
      requestId: row.request_id,
    },
    action: row.action,
    subject: row.subject_kind && row.subject_id ? { kind: row.subject_kind, id: row.subject_id } : null,
    before: row.before === null ? null : JSON.parse(row.before),
    after: row.after === null ? null : JSON.parse(row.after),
  };
}
