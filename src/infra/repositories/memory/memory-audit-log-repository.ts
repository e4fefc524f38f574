import type { AuditEntry, AuditLogRepository, AuditQuery } from '../../../core/audit/audit-log';
import { assertUnique, byText, copy, type TablesRef } from './memory-tables';

const newestFirst = (a: AuditEntry, b: AuditEntry) => b.at.getTime() - a.at.getTime() || byText(b.id, a.id);

/** The twin of KnexAuditLogRepository: `audit_log`, append and read only. */
export class MemoryAuditLogRepository implements AuditLogRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.audit;
  }

  async append(entry: AuditEntry): Promise<void> {
    assertUnique(this.rows.has(entry.id), `audit_log.id ${entry.id}`);
    // As the row keeps it: columns cut to their widths, before and after as JSON.
    const json = (value: unknown) => (value === null ? null : JSON.parse(JSON.stringify(value)));
    this.rows.set(entry.id, {
      id: entry.id,
      at: new Date(entry.at.getTime()),
      actor: {
        kind: entry.actor.kind,
        id: entry.actor.id,
        label: entry.actor.label.slice(0, 254),
        clientIp: entry.actor.clientIp?.slice(0, 64) ?? null,
        requestId: entry.actor.requestId?.slice(0, 64) ?? null,
      },
      action: entry.action.slice(0, 64),
      subject: entry.subject ? { kind: entry.subject.kind.slice(0, 32), id: entry.subject.id.slice(0, 254) } : null,
      before: json(entry.before),
      after: json(entry.after),
    });
  }

  async find(q: AuditQuery): Promise<AuditEntry[]> {
    const before = q.before;
    return copy(
      [...this.rows.values()]
        .filter(
          (e) =>
            (!q.actorKind || e.actor.kind === q.actorKind) &&
            (!q.actorId || e.actor.id === q.actorId) &&
            (!q.actionPrefix || e.action.toLowerCase().startsWith(q.actionPrefix.toLowerCase())) &&
            (!q.actorLabel || e.actor.label.toLowerCase().includes(q.actorLabel.toLowerCase())) &&
            (!q.subject || (e.subject?.kind === q.subject.kind && e.subject.id === q.subject.id)) &&
            (!q.since || e.at.getTime() >= q.since.getTime()) &&
            (!q.until || e.at.getTime() < q.until.getTime()) &&
            (!before ||
              e.at.getTime() < before.at.getTime() ||
              (e.at.getTime() === before.at.getTime() && byText(e.id, before.id) < 0)),
        )
        .sort(newestFirst)
        .slice(0, q.limit),
    );
  }

  async purge(before: Date, limit: number): Promise<number> {
    const gone = [...this.rows.values()]
      .filter((e) => e.at.getTime() < before.getTime())
      .sort((a, b) => a.at.getTime() - b.at.getTime())
      .slice(0, limit);
    for (const e of gone) this.rows.delete(e.id);
    return gone.length;
  }
}
