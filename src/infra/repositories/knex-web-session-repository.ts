import type { Knex } from 'knex';
import type { OperatorRole } from '../../core/operator/operator';
import type { ResellerStatus } from '../../core/reseller/reseller';
import type {
  NamedPrincipal,
  SessionWithPrincipal,
  WebArea,
  WebSession,
  WebSessionRepository,
} from '../../web/sessions';
import { type HotReads, knexHotReads } from '../db/driver-pools';

interface SessionRow {
  id_hash: string;
  area: string;
  principal_kind: string;
  principal_id: string;
  stage: string;
  csrf_token: string;
  created_at: number | string;
  last_seen_at: number | string;
  expires_at: number | string;
  client_ip: string | null;
  user_agent: string | null;
  data: string | null;
}

/** Whom a session names, joined to it: its operator's or its reseller's row (never a hash or a secret). */
interface SessionWithPrincipalRow extends SessionRow {
  operator_id: string | null;
  operator_email: string;
  operator_role: string;
  operator_has_password: number | string;
  operator_has_second_factor: number | string;
  operator_disabled_at: number | string | null;
  operator_created_at: number | string;
  reseller_id: string | null;
  reseller_email: string;
  reseller_group_id: string;
  reseller_status: string;
  reseller_created_at: number | string;
}

// Every page's first read: the session with whom it names, in one statement.
const FIND_WITH_PRINCIPAL = `SELECT s.id_hash, s.area, s.principal_kind, s.principal_id, s.stage, s.csrf_token,
    s.created_at, s.last_seen_at, s.expires_at, s.client_ip, s.user_agent, s.data,
    o.id AS operator_id, o.email AS operator_email, o.role AS operator_role,
    CASE WHEN o.password_hash IS NULL THEN 0 ELSE 1 END AS operator_has_password,
    CASE WHEN o.sealed_totp_secret IS NULL THEN 0 ELSE 1 END AS operator_has_second_factor,
    o.disabled_at AS operator_disabled_at, o.created_at AS operator_created_at,
    r.id AS reseller_id, r.email AS reseller_email, r.group_id AS reseller_group_id,
    r.status AS reseller_status, r.created_at AS reseller_created_at
  FROM web_sessions s
  LEFT JOIN operators o ON s.principal_kind = 'operator' AND o.id = s.principal_id
  LEFT JOIN resellers r ON s.principal_kind = 'reseller' AND r.id = s.principal_id
  WHERE s.id_hash = ?`;

export class KnexWebSessionRepository implements WebSessionRepository {
  private readonly reads: HotReads;

  /** `reads`: the hot-path reader for the session read every page starts with (src/infra/db/driver-pools.ts). */
  constructor(
    private readonly db: Knex,
    reads?: HotReads,
  ) {
    this.reads = reads ?? knexHotReads(db);
  }

  async insert(s: WebSession): Promise<void> {
    await this.db<SessionRow>('web_sessions').insert({
      id_hash: s.idHash,
      area: s.area,
      principal_kind: s.principalKind,
      principal_id: s.principalId,
      stage: s.stage,
      csrf_token: s.csrfToken,
      created_at: s.createdAt.getTime(),
      last_seen_at: s.lastSeenAt.getTime(),
      expires_at: s.expiresAt.getTime(),
      client_ip: s.clientIp,
      user_agent: s.userAgent,
      data: Object.keys(s.data).length > 0 ? JSON.stringify(s.data) : null,
    });
  }

  async find(idHash: string): Promise<SessionWithPrincipal | undefined> {
    const row = await this.reads.first<SessionWithPrincipalRow>(FIND_WITH_PRINCIPAL, [idHash]);
    return row ? { session: toSession(row), principal: toPrincipal(row) } : undefined;
  }

  async touch(idHash: string, lastSeenAt: Date): Promise<void> {
    await this.db<SessionRow>('web_sessions').where({ id_hash: idHash }).update({ last_seen_at: lastSeenAt.getTime() });
  }

  async setData(idHash: string, data: Readonly<Record<string, string>>): Promise<void> {
    await this.db<SessionRow>('web_sessions')
      .where({ id_hash: idHash })
      .update({ data: Object.keys(data).length > 0 ? JSON.stringify(data) : null });
  }

  async delete(idHash: string): Promise<boolean> {
    return (await this.db<SessionRow>('web_sessions').where({ id_hash: idHash }).delete()) > 0;
  }

  deleteForPrincipal(kind: WebSession['principalKind'], principalId: string): Promise<number> {
    return this.db<SessionRow>('web_sessions').where({ principal_kind: kind, principal_id: principalId }).delete();
  }

  async list(
    area: WebArea,
    now: Date,
    principal?: { kind: WebSession['principalKind']; id: string },
  ): Promise<WebSession[]> {
    const q = this.db<SessionRow>('web_sessions')
      .where({ area })
      .andWhere('expires_at', '>', now.getTime())
      .orderBy('created_at', 'desc')
      .limit(500);
    if (principal) q.andWhere({ principal_kind: principal.kind, principal_id: principal.id });
    return (await q).map(toSession);
  }

  purgeExpired(now: Date, idleBefore: Date): Promise<number> {
    return this.db<SessionRow>('web_sessions')
      .where('expires_at', '<=', now.getTime())
      .orWhere('last_seen_at', '<', idleBefore.getTime())
      .delete();
  }
}

function toPrincipal(row: SessionWithPrincipalRow): NamedPrincipal | undefined {
  if (row.operator_id !== null)
    return {
      kind: 'operator',
      operator: {
        id: row.operator_id,
        email: row.operator_email,
        role: row.operator_role as OperatorRole,
        hasPassword: Number(row.operator_has_password) === 1,
        hasSecondFactor: Number(row.operator_has_second_factor) === 1,
        disabledAt: row.operator_disabled_at === null ? null : new Date(Number(row.operator_disabled_at)),
        createdAt: new Date(Number(row.operator_created_at)),
      },
    };
  if (row.reseller_id !== null)
    return {
      kind: 'reseller',
      reseller: {
        id: row.reseller_id,
        email: row.reseller_email,
        groupId: row.reseller_group_id,
        status: row.reseller_status as ResellerStatus,
        createdAt: new Date(Number(row.reseller_created_at)),
      },
    };
  return undefined;
}

function toSession(row: SessionRow): WebSession {
  return {
    idHash: row.id_hash,
    area: row.area as WebArea,
    principalKind: row.principal_kind as WebSession['principalKind'],
    principalId: row.principal_id,
    stage: row.stage as WebSession['stage'],
    csrfToken: row.csrf_token,
    createdAt: new Date(Number(row.created_at)),
    lastSeenAt: new Date(Number(row.last_seen_at)),
    expiresAt: new Date(Number(row.expires_at)),
    clientIp: row.client_ip,
    userAgent: row.user_agent,
    data: row.data ? (JSON.parse(row.data) as Record<string, string>) : {},
  };
}
