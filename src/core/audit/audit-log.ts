import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../common/clock';
import { orderedUlid } from '../common/ids';
import { isSecretField } from '../common/secret-fields';

/** Who made a change: a signed-in operator or reseller, a CLI command on the server, or the platform itself. */
export interface Actor {
  readonly kind: 'operator' | 'reseller' | 'cli' | 'system';
  /** The operator's or reseller's id; null for the CLI and the system. */
  readonly id: string | null;
  /** What people read: an email, or "cli" with the shell user. */
  readonly label: string;
  /** The client address of a web request. */
  readonly clientIp?: string | null;
  readonly requestId?: string | null;
}

export interface AuditEntry {
  readonly id: string;
  readonly at: Date;
  readonly actor: Actor;
  /** A verb on a thing, like "reseller.credit.adjust" or "operator.sign_in.failed". */
  readonly action: string;
  readonly subject: { readonly kind: string; readonly id: string } | null;
  /** What the thing looked like before and after, secrets left out (null where nothing existed). */
  readonly before: unknown;
  readonly after: unknown;
}

export interface AuditQuery {
  readonly actorKind?: Actor['kind'];
  readonly actorId?: string;
  /** Entries whose actor's label (an email, "cli:<user>") contains this, case-insensitively. */
  readonly actorLabel?: string;
  /** Actions starting with this, like "reseller." */
  readonly actionPrefix?: string;
  readonly subject?: { readonly kind: string; readonly id: string };
  readonly since?: Date;
  readonly until?: Date;
  /** Keyset: entries strictly older than this entry's (at, id). */
  readonly before?: { readonly at: Date; readonly id: string };
  readonly limit: number;
}

/** Port: where the audit log is kept. Append and read only: nothing updates an entry. */
export interface AuditLogRepository {
  append(entry: AuditEntry): Promise<void>;
  /** Newest first. */
  find(query: AuditQuery): Promise<AuditEntry[]>;
  /** Deletes entries older than `before` (retention); returns how many. */
  purge(before: Date, limit: number): Promise<number>;
}

export interface AuditRecord {
  readonly action: string;
  readonly subject?: { readonly kind: string; readonly id: string } | null;
  readonly before?: unknown;
  readonly after?: unknown;
}

/** Who a change is made for when nobody said: a background pass of the platform itself. */
export const SYSTEM_ACTOR: Actor = { kind: 'system', id: null, label: 'system' };

const acting = new AsyncLocalStorage<Actor>();

/**
 * Runs `work` on behalf of `actor`: the audit entries its units of work write name it. The CLI runs
 * each command so, the web layer each page request (ADR 17); without it, entries name the system.
 */
export function actingAs<T>(actor: Actor, work: () => Promise<T>): Promise<T> {
  return acting.run(actor, work);
}

/** The actor the current change is made for (`actingAs`), or the system. */
export function currentActor(): Actor {
  return acting.getStore() ?? SYSTEM_ACTOR;
}

/**
 * The entry a change writes with its own repositories, in its own transaction (`repos.audit.append`),
 * so that a change that fails leaves no entry and one that commits always has one.
 */
export function auditEntry(record: AuditRecord, at: Date, actor: Actor = currentActor()): AuditEntry {
  return {
    id: orderedUlid(),
    at,
    actor,
    action: record.action,
    subject: record.subject ?? null,
    before: withoutSecrets(record.before ?? null),
    after: withoutSecrets(record.after ?? null),
  };
}

/** Appends the entry of a change to the change's own audit repository (its transaction's), by the acting actor. */
export function recordChange(audit: AuditLogRepository, clock: Clock, record: AuditRecord): Promise<void> {
  return audit.append(auditEntry(record, clock.now()));
}

/**
 * The audit log: every change made from the console, the portal or a CLI command. A change writes
 * its entry in its own transaction (`auditEntry`); `record` is for events that change nothing else
 * (a sign-in, a failed one, a sign-out). Append-only; kept `retentionDays` (0: forever).
 */
export class AuditLog {
  constructor(
    private readonly repository: AuditLogRepository,
    private readonly clock: Clock,
    private readonly retentionDays = 0,
  ) {}

  async record(actor: Actor, record: AuditRecord): Promise<AuditEntry> {
    const entry = auditEntry(record, this.clock.now(), actor);
    await this.repository.append(entry);
    return entry;
  }

  find(query: AuditQuery): Promise<AuditEntry[]> {
    return this.repository.find({ ...query, limit: Math.min(Math.max(query.limit, 1), 1000) });
  }

  /** Deletes entries past the retention (nothing when it is 0). */
  async purge(): Promise<{ deleted: number }> {
    if (this.retentionDays <= 0) return { deleted: 0 };
    const before = new Date(this.clock.now().getTime() - this.retentionDays * 86_400_000);
    let deleted = 0;
    for (;;) {
      const n = await this.repository.purge(before, 1000);
      deleted += n;
      if (n < 1000) return { deleted };
    }
  }
}

/** A copy with every secret-looking key masked, however deep (the log is read by support staff). */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  // Keys whose values never go into the audit log, whatever a caller passes: the one secret rule.
  for (const [key, inner] of Object.entries(value)) out[key] = isSecretField(key) ? '(secret)' : withoutSecrets(inner);
  return out;
}
