import { fixedClock } from '../../../src/core/common/clock';
import { hashSessionId, type WebSession, type WebSessionRepository, WebSessions } from '../../../src/web/sessions';

/** An in-memory sessions table, as strict as the real one about what it returns. */
function memoryRepository(): WebSessionRepository & { rows: Map<string, WebSession> } {
  const rows = new Map<string, WebSession>();
  return {
    rows,
    insert: async (s) => void rows.set(s.idHash, s),
    find: async (id) => {
      const session = rows.get(id);
      return session && { session, principal: undefined };
    },
    touch: async (id, at) => {
      const s = rows.get(id);
      if (s) rows.set(id, { ...s, lastSeenAt: at });
    },
    setData: async (id, data) => {
      const s = rows.get(id);
      if (s) rows.set(id, { ...s, data: { ...data } });
    },
    delete: async (id) => rows.delete(id),
    deleteForPrincipal: async (kind, id) => {
      let n = 0;
      for (const [key, s] of rows) if (s.principalKind === kind && s.principalId === id && rows.delete(key)) n++;
      return n;
    },
    list: async (area, now) => [...rows.values()].filter((s) => s.area === area && s.expiresAt > now),
    purgeExpired: async () => 0,
  };
}

describe('web sessions', () => {
  const start = {
    area: 'console' as const,
    principalKind: 'operator' as const,
    principalId: 'op',
    stage: 'signed_in' as const,
    clientIp: null,
    userAgent: null,
  };

  it('remembers as served before only a signed-in session found live in its area, until it ends', async () => {
    const sessions = new WebSessions(memoryRepository(), fixedClock('2026-11-21T10:00:00Z'), {
      idleMs: 60_000 * 30,
      absoluteMs: 3_600_000 * 12,
    });
    const signedIn = await sessions.start(start);
    const halfway = await sessions.start({ ...start, stage: 'second_factor' });
    expect(sessions.servedBefore(signedIn.id, 'console')).toBe(false);

    await sessions.resume(signedIn.id, 'console');
    await sessions.resume(halfway.id, 'console');
    expect(sessions.servedBefore(signedIn.id, 'console')).toBe(true);
    expect(sessions.servedBefore(signedIn.id, 'portal')).toBe(false);
    expect(sessions.servedBefore(halfway.id, 'console')).toBe(false);
    expect(sessions.servedBefore(undefined, 'console')).toBe(false);

    await sessions.end(signedIn.session.idHash);
    expect(sessions.servedBefore(signedIn.id, 'console')).toBe(false);
  });

  it('stores only the hash of the id the cookie holds', async () => {
    const repo = memoryRepository();
    const { id, session } = await new WebSessions(repo, fixedClock('2026-11-21T10:00:00Z'), {
      idleMs: 60_000 * 30,
      absoluteMs: 3_600_000 * 12,
    }).start(start);
    expect(session.idHash).toBe(hashSessionId(id));
    expect([...repo.rows.keys()]).toEqual([hashSessionId(id)]);
    expect(JSON.stringify([...repo.rows.values()])).not.toContain(id);
  });

  it('ends a session idle longer than the idle timeout, and one past its absolute lifetime however active', async () => {
    const clock = fixedClock('2026-11-21T10:00:00Z');
    const sessions = new WebSessions(memoryRepository(), clock, { idleMs: 30 * 60_000, absoluteMs: 12 * 3_600_000 });
    const idle = await sessions.start(start);
    clock.advance(31 * 60_000);
    expect(await sessions.resume(idle.id, 'console')).toBeUndefined();

    const busy = await sessions.start(start);
    // Used every 20 minutes for 11 h 40 min: alive throughout.
    for (let step = 0; step < 35; step++) {
      clock.advance(20 * 60_000);
      expect(await sessions.resume(busy.id, 'console')).toBeDefined();
    }
    clock.advance(20 * 60_000);
    expect(await sessions.resume(busy.id, 'console')).toBeUndefined();
  });

  it('gives a new id at each sign-in step and forgets the old one', async () => {
    const sessions = new WebSessions(memoryRepository(), fixedClock('2026-11-21T10:00:00Z'), {
      idleMs: 60_000,
      absoluteMs: 3_600_000,
    });
    const first = await sessions.start({ ...start, stage: 'second_factor' });
    const next = await sessions.advance(first.session, 'signed_in');
    expect(next.id).not.toBe(first.id);
    expect(next.session.csrfToken).not.toBe(first.session.csrfToken);
    expect(await sessions.resume(first.id, 'console')).toBeUndefined();
    expect((await sessions.resume(next.id, 'console'))?.session.stage).toBe('signed_in');
  });

  it('does not open a console session in another area', async () => {
    const sessions = new WebSessions(memoryRepository(), fixedClock('2026-11-21T10:00:00Z'), {
      idleMs: 60_000,
      absoluteMs: 3_600_000,
    });
    const { id } = await sessions.start(start);
    expect(await sessions.resume(id, 'portal')).toBeUndefined();
  });
});
