import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../core/common/clock';
import type { Operator } from '../core/operator/operator';
import type { Reseller } from '../core/reseller/reseller';

/** The two areas served to people: the operator console and the reseller portal. */
export type WebArea = 'console' | 'portal';

/**
 * Where a session is in sign-in: `signed_in`, or a step still owed after the password (the
 * second factor, or enrolling one). Pages of an area say which stage they need.
 */
export type SessionStage = 'signed_in' | 'second_factor' | 'enrol_second_factor';

export interface WebSession {
  /** SHA-256 of the cookie's value: what the table stores and what the console shows and revokes by. */
  readonly idHash: string;
  readonly area: WebArea;
  readonly principalKind: 'operator' | 'reseller';
  readonly principalId: string;
  readonly stage: SessionStage;
  /** Every state-changing request of this session carries it (form field `_csrf` or header X-CSRF-Token). */
  readonly csrfToken: string;
  readonly createdAt: Date;
  readonly lastSeenAt: Date;
  /** The absolute end of the session, whatever its activity. */
  readonly expiresAt: Date;
  readonly clientIp: string | null;
  readonly userAgent: string | null;
  /** Small state of a sign-in step (for example a sealed TOTP secret being enrolled). */
  readonly data: Readonly<Record<string, string>>;
}

/** Whom a session names, as read with it: the operator of a console session, the reseller of a portal one. */
export type NamedPrincipal =
  | { readonly kind: 'operator'; readonly operator: Operator }
  | { readonly kind: 'reseller'; readonly reseller: Reseller };

/** A session and whom it names, read together; `principal` is undefined when that row is gone. */
export interface SessionWithPrincipal {
  readonly session: WebSession;
  readonly principal: NamedPrincipal | undefined;
}

/** Port: the sessions table (src/infra/repositories/knex-web-session-repository.ts). */
export interface WebSessionRepository {
  insert(session: WebSession): Promise<void>;
  /**
   * The session and whom it names, in one statement: every page starts with this read, so the
   * principal's current row (disabled, suspended, another role) comes with the session's.
   */
  find(idHash: string): Promise<SessionWithPrincipal | undefined>;
  touch(idHash: string, lastSeenAt: Date): Promise<void>;
  /** Replaces the session's small state (`data`). */
  setData(idHash: string, data: Readonly<Record<string, string>>): Promise<void>;
  delete(idHash: string): Promise<boolean>;
  deleteForPrincipal(kind: WebSession['principalKind'], principalId: string): Promise<number>;
  list(area: WebArea, now: Date, principal?: { kind: WebSession['principalKind']; id: string }): Promise<WebSession[]>;
  purgeExpired(now: Date, idleBefore: Date): Promise<number>;
}

export interface SessionLifetimes {
  /** A session unused this long ends (WEB_SESSION_IDLE_MINUTES). */
  readonly idleMs: number;
  /** A session ends this long after sign-in, however active (WEB_SESSION_MAX_HOURS). */
  readonly absoluteMs: number;
}

/** last_seen_at is written at most this often, so that reading pages does not write on every request. */
const TOUCH_EVERY_MS = 60_000;
/** Signed-in sessions a process remembers having served (the oldest forgotten first). */
const SERVED_REMEMBERED = 10_000;

export interface SessionStart {
  readonly area: WebArea;
  readonly principalKind: WebSession['principalKind'];
  readonly principalId: string;
  readonly stage: SessionStage;
  readonly clientIp: string | null;
  readonly userAgent: string | null;
  readonly data?: Record<string, string>;
}

/**
 * Sessions of people signed in to the console or the portal, kept in the database so that they
 * can be listed and revoked and so that any process behind the load balancer knows them. The
 * cookie holds 256 random bits; the table holds their hash. A new id is made at every step of
 * sign-in (a session id known before sign-in is never signed in: no fixation).
 */
export class WebSessions {
  /**
   * Hashes of signed-in sessions this process found live at their last request, with their area:
   * only a hint for starting a page's read early (web-app.ts), never a reason to serve anything.
   */
  private readonly served = new Map<string, WebArea>();

  constructor(
    private readonly repository: WebSessionRepository,
    private readonly clock: Clock,
    readonly lifetimes: SessionLifetimes,
  ) {}

  /** A new session; returns the cookie's value (shown to nobody else) and the session. */
  async start(start: SessionStart, createdAt?: Date): Promise<{ id: string; session: WebSession }> {
    const id = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const since = createdAt ?? now;
    const session: WebSession = {
      idHash: hashSessionId(id),
      area: start.area,
      principalKind: start.principalKind,
      principalId: start.principalId,
      stage: start.stage,
      csrfToken: randomBytes(24).toString('base64url'),
      createdAt: since,
      lastSeenAt: now,
      expiresAt: new Date(since.getTime() + this.lifetimes.absoluteMs),
      clientIp: start.clientIp?.slice(0, 64) ?? null,
      userAgent: start.userAgent?.slice(0, 255) ?? null,
      data: start.data ?? {},
    };
    await this.repository.insert(session);
    return { id, session };
  }

  /**
   * The live session of a cookie value in an area with whom it names, read fresh from the table,
   * or undefined (unknown, another area's, idle too long or past its end).
   */
  async resume(id: string | undefined, area: WebArea): Promise<SessionWithPrincipal | undefined> {
    if (!id || !/^[\w-]{43}$/.test(id)) return undefined;
    const idHash = hashSessionId(id);
    const found = await this.repository.find(idHash);
    if (!found || found.session.area !== area) {
      this.served.delete(idHash);
      return undefined;
    }
    const { session } = found;
    const now = this.clock.now().getTime();
    if (now >= session.expiresAt.getTime() || now - session.lastSeenAt.getTime() >= this.lifetimes.idleMs) {
      this.served.delete(idHash);
      await this.repository.delete(session.idHash);
      return undefined;
    }
    if (now - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS)
      await this.repository.touch(session.idHash, new Date(now));
    if (session.stage === 'signed_in' && !this.served.has(idHash)) {
      if (this.served.size >= SERVED_REMEMBERED) this.served.delete(this.served.keys().next().value!);
      this.served.set(idHash, area);
    }
    return found;
  }

  /**
   * Whether this process served the cookie's session, signed in, at its last request (and has not
   * ended it since). A hint only, never a check: the session may have been revoked, or its
   * principal disabled, by another process since; `resume` is what decides.
   */
  servedBefore(id: string | undefined, area: WebArea): boolean {
    return id !== undefined && /^[\w-]{43}$/.test(id) && this.served.get(hashSessionId(id)) === area;
  }

  /**
   * The next step of sign-in under a new id: the old row is deleted and a new one made. The
   * absolute lifetime counts from the first step (a sign-in cannot be stretched by repeating steps).
   */
  async advance(
    session: WebSession,
    stage: SessionStage,
    data: Record<string, string> = {},
  ): Promise<{ id: string; session: WebSession }> {
    this.served.delete(session.idHash);
    await this.repository.delete(session.idHash);
    return this.start(
      {
        area: session.area,
        principalKind: session.principalKind,
        principalId: session.principalId,
        stage,
        clientIp: session.clientIp,
        userAgent: session.userAgent,
        data,
      },
      stage === 'signed_in' ? this.clock.now() : session.createdAt,
    );
  }

  /** Replaces a signed-in session's small state, under the same id (a value shown once, like a new API key, sealed). */
  setData(session: WebSession, data: Readonly<Record<string, string>>): Promise<void> {
    return this.repository.setData(session.idHash, data);
  }

  /** Ends one session (sign-out, or revoked from the console); true when it existed. */
  end(idHash: string): Promise<boolean> {
    this.served.delete(idHash);
    return this.repository.delete(idHash);
  }

  /** Ends every session of someone (a disabled operator, a suspended reseller, a new password). */
  endAllOf(kind: WebSession['principalKind'], principalId: string): Promise<number> {
    return this.repository.deleteForPrincipal(kind, principalId);
  }

  /** The live sessions of an area (of one principal when given), newest first. */
  async list(area: WebArea, principal?: { kind: WebSession['principalKind']; id: string }): Promise<WebSession[]> {
    const now = this.clock.now().getTime();
    // Idle ones are over too, though their rows wait for the hourly purge.
    return (await this.repository.list(area, this.clock.now(), principal)).filter(
      (s) => now - s.lastSeenAt.getTime() < this.lifetimes.idleMs,
    );
  }

  /** Deletes sessions past their end or idle too long (a background job). */
  purgeExpired(): Promise<number> {
    const now = this.clock.now();
    return this.repository.purgeExpired(now, new Date(now.getTime() - this.lifetimes.idleMs));
  }
}

export const hashSessionId = (id: string): string => createHash('sha256').update(id).digest('hex');
