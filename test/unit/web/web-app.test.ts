import request from 'supertest';
import { fixedClock } from '../../../src/core/common/clock';
import type { AreaRules, Page } from '../../../src/web/page-table';
import { type PrincipalRef, type WebSession, type WebSessionRepository, WebSessions } from '../../../src/web/sessions';
import { consoleAreaOf } from '../../support/web-area';

interface Person {
  readonly id: string;
  readonly name: string;
  readonly isDisabled: boolean;
}

/** A sessions table whose reads can be held open, to see what an area reads while one is in flight. */
function heldRepository() {
  const rows = new Map<string, WebSession>();
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  let entered: Promise<void> = Promise.resolve();
  let enter = () => {};
  const repository: WebSessionRepository = {
    insert: async (s) => void rows.set(s.idHash, s),
    find: async (id) => {
      enter();
      await gate;
      return rows.get(id);
    },
    touch: async () => {},
    setData: async () => {},
    delete: async (id) => rows.delete(id),
    deleteForPrincipal: async () => 0,
    list: async () => [],
    purgeExpired: async () => 0,
  };
  return {
    rows,
    repository,
    hold() {
      gate = new Promise((resolve) => {
        open = resolve;
      });
      entered = new Promise((resolve) => {
        enter = resolve;
      });
    },
    /** Resolves once a held session read has started. */
    started: () => entered,
    release: () => open(),
  };
}

describe('a web area reading who is signed in', () => {
  const people = new Map<string, Person>();
  const reads: Array<{ principalId: string; whileSessionReadHeld: boolean }> = [];
  const table = heldRepository();
  let held = false;
  const sessions = new WebSessions(table.repository, fixedClock('2026-11-21T10:00:00Z'), {
    idleMs: 30 * 60_000,
    absoluteMs: 12 * 3_600_000,
  });
  const rules: AreaRules<Person, 'public' | 'viewer'> = {
    publicAccess: ['public'],
    async principalOf(ref: PrincipalRef) {
      reads.push({ principalId: ref.principalId, whileSessionReadHeld: held });
      const person = people.get(ref.principalId);
      return person && !person.isDisabled ? person : undefined;
    },
    allows: (access, _person, session) => access === 'viewer' && session.stage === 'signed_in',
    redirectFor: () => '/sign-in',
    actorOf: (person) => ({ kind: 'operator', id: person.id, label: person.name }),
    layout: () => ({ nav: [] }),
  };
  const pages: ReadonlyArray<Page<Person, 'public' | 'viewer'>> = [
    {
      method: 'get',
      path: '/who',
      access: 'viewer',
      handler: async (ctx) => ctx.csv('who.csv', [[ctx.principal.name]]),
    },
  ];
  const server = consoleAreaOf({ pages, rules, sessions });

  const signIn = async (principalId: string) =>
    `console_session=${
      (
        await sessions.start({
          area: 'console',
          principalKind: 'operator',
          principalId,
          stage: 'signed_in',
          clientIp: null,
          userAgent: null,
        })
      ).id
    }`;
  /** One request whose session read is held until the area has started what it starts together with it. */
  const whoWithSessionReadHeld = async (cookie: string) => {
    held = true;
    table.hold();
    const answer = request(server)
      .get('/admin/who')
      .set('cookie', cookie)
      .then((r) => r);
    // What the area starts together with the session read is started in the same turn as that read.
    await table.started();
    await new Promise((resolve) => setImmediate(resolve));
    held = false;
    table.release();
    return answer;
  };

  beforeEach(() => {
    table.rows.clear();
    people.clear();
    reads.length = 0;
    people.set('ann', { id: 'ann', name: 'Ann', isDisabled: false });
    people.set('bob', { id: 'bob', name: 'Bob', isDisabled: false });
  });

  it("reads a known session's principal alongside the session, fresh on every request", async () => {
    const cookie = await signIn('ann');
    expect((await request(server).get('/admin/who').set('cookie', cookie)).text).toBe('Ann\r\n');
    expect(reads).toEqual([{ principalId: 'ann', whileSessionReadHeld: false }]);

    people.set('ann', { id: 'ann', name: 'Ann Renamed', isDisabled: false });
    const next = await whoWithSessionReadHeld(cookie);
    expect(next.text).toBe('Ann Renamed\r\n');
    expect(reads.slice(1)).toEqual([{ principalId: 'ann', whileSessionReadHeld: true }]);
  });

  it('ends the session on the next request when its principal was disabled since the last one', async () => {
    const cookie = await signIn('ann');
    await request(server).get('/admin/who').set('cookie', cookie);
    people.set('ann', { id: 'ann', name: 'Ann', isDisabled: true });

    const next = await whoWithSessionReadHeld(cookie);
    expect(next.status).toBe(303);
    expect(next.headers.location).toBe('/admin/sign-in');
    expect(table.rows.size).toBe(0);
  });

  it('uses the principal the session read in this request names, never the one remembered for it', async () => {
    const cookie = await signIn('ann');
    await request(server).get('/admin/who').set('cookie', cookie);
    // The row now names someone else (a row rewritten behind the area's back): Bob is read, after the session.
    const [idHash] = [...table.rows.keys()];
    table.rows.set(idHash!, { ...table.rows.get(idHash!)!, principalId: 'bob' });

    const next = await whoWithSessionReadHeld(cookie);
    expect(next.text).toBe('Bob\r\n');
    expect(reads.slice(1)).toEqual([
      { principalId: 'ann', whileSessionReadHeld: true },
      { principalId: 'bob', whileSessionReadHeld: false },
    ]);
  });

  it('reads nothing about a principal for a cookie no session has', async () => {
    const answer = await request(server)
      .get('/admin/who')
      .set('cookie', `console_session=${'x'.repeat(43)}`);
    expect(answer.status).toBe(303);
    expect(reads).toEqual([]);
  });
});
