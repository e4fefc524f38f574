import type { Knex } from 'knex';
import type { WebArea, WebSession, WebSessionRepository } from '../../web/sessions';

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

export class KnexWebSessionRepository implements WebSessionRepository {
  constructor(private readonly db: Knex) {}

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

  async find(idHash: string): Promise<WebSession | undefined> {
    const row = await this.db<SessionRow>('web_sessions').where({ id_hash: idHash }).first();
    return row ? toSession(row) : undefined;
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
