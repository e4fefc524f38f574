import request from 'supertest';
import { fixedClock } from '../../../src/core/common/clock';
import type { Operator } from '../../../src/core/operator/operator';
import type { Reseller } from '../../../src/core/reseller/reseller';
import { consoleRules } from '../../../src/web/console/console-access';
import { type AreaRules, type Page, readingEarly } from '../../../src/web/page-table';
import { portalRules } from '../../../src/web/portal/portal-access';
import { type WebSession, type WebSessionRepository, WebSessions } from '../../../src/web/sessions';
import { consoleAreaOf } from '../../support/web-area';

/**
 * A sessions table joined to a table of people, as the real one is joined to operators: each read
 * returns the session with whom it names as that row is at the time of the read.
 */
function joinedRepository(people: Map<string, Operator>) {
  const rows = new Map<string, WebSession>();
  const reads: string[] = [];
  const repository: WebSessionRepository = {
    insert: async (s) => void rows.set(s.idHash, s),
    find: async (id) => {
      reads.push(id);
      const session = rows.get(id);
      const operator = session && people.get(session.principalId);
      return session && { session, principal: operator && { kind: 'operator', operator } };
    },
    touch: async () => {},
    setData: async () => {},
    delete: async (id) => rows.delete(id),
    deleteForPrincipal: async () => 0,
    list: async () => [],
    purgeExpired: async () => 0,
  };
  return { rows, reads, repository };
}

const operator = (id: string, email: string, disabledAt: Date | null = null): Operator => ({
  id,
  email,
  role: 'viewer',
  hasPassword: true,
  hasSecondFactor: false,
  disabledAt,
  createdAt: new Date('2026-11-01T00:00:00Z'),
});

describe('a web area reading who is signed in', () => {
  const people = new Map<string, Operator>();
  const table = joinedRepository(people);
  const sessions = new WebSessions(table.repository, fixedClock('2026-11-21T10:00:00Z'), {
    idleMs: 30 * 60_000,
    absoluteMs: 12 * 3_600_000,
  });
  const rules: AreaRules<Operator, 'public' | 'viewer'> = {
    publicAccess: ['public'],
    principalOf: (named) => (named?.kind === 'operator' && !named.operator.disabledAt ? named.operator : undefined),
    allows: (access, _person, session) => access === 'viewer' && session.stage === 'signed_in',
    redirectFor: () => '/sign-in',
    actorOf: (person) => ({ kind: 'operator', id: person.id, label: person.email }),
    layout: () => ({ nav: [] }),
  };
  const pages: ReadonlyArray<Page<Operator, 'public' | 'viewer'>> = [
    {
      method: 'get',
      path: '/who',
      access: 'viewer',
      handler: async (ctx) => ctx.csv('who.csv', [[ctx.principal.email]]),
    },
  ];
  const server = consoleAreaOf({ pages, rules, sessions });

  const signIn = (principalId: string) => signedInCookie(sessions, principalId);

  beforeEach(() => {
    table.rows.clear();
    table.reads.length = 0;
    people.clear();
    people.set('ann', operator('ann', 'ann@example.com'));
    people.set('bob', operator('bob', 'bob@example.com'));
  });

  it('takes whom the session names from the one read of the session, fresh on every request', async () => {
    const cookie = await signIn('ann');
    expect((await request(server).get('/admin/who').set('cookie', cookie)).text).toBe('ann@example.com\r\n');
    people.set('ann', operator('ann', 'ann.renamed@example.com'));
    expect((await request(server).get('/admin/who').set('cookie', cookie)).text).toBe('ann.renamed@example.com\r\n');
    expect(table.reads).toHaveLength(2);
  });

  it('uses whom the session row names now, when the row names someone else than at sign-in', async () => {
    const cookie = await signIn('ann');
    await request(server).get('/admin/who').set('cookie', cookie);
    const [idHash] = [...table.rows.keys()];
    table.rows.set(idHash!, { ...table.rows.get(idHash!)!, principalId: 'bob' });

    expect((await request(server).get('/admin/who').set('cookie', cookie)).text).toBe('bob@example.com\r\n');
  });

  it('ends the session on the next request when whom it names was disabled since the last one', async () => {
    const cookie = await signIn('ann');
    await request(server).get('/admin/who').set('cookie', cookie);
    people.set('ann', operator('ann', 'ann@example.com', new Date('2026-11-21T09:59:00Z')));

    const next = await request(server).get('/admin/who').set('cookie', cookie);
    expect(next.status).toBe(303);
    expect(next.headers.location).toBe('/admin/sign-in');
    expect(table.rows.size).toBe(0);
  });

  it('ends the session when whom it names is gone', async () => {
    const cookie = await signIn('ann');
    people.delete('ann');

    const next = await request(server).get('/admin/who').set('cookie', cookie);
    expect(next.status).toBe(303);
    expect(table.rows.size).toBe(0);
  });

  it('signs nobody in for a cookie no session has', async () => {
    const answer = await request(server)
      .get('/admin/who')
      .set('cookie', `console_session=${'x'.repeat(43)}`);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/admin/sign-in');
  });
});

describe('whom each area lets in from a session', () => {
  const reseller = (status: Reseller['status']): Reseller => ({
    id: 'r1',
    email: 'r@example.com',
    groupId: 'g',
    status,
    createdAt: new Date('2026-11-01T00:00:00Z'),
  });

  it('lets an enabled operator into the console, and no disabled operator, reseller or missing row', () => {
    const rules = consoleRules();
    const ann = operator('ann', 'ann@example.com');
    expect(rules.principalOf({ kind: 'operator', operator: ann })).toEqual({ operator: ann });
    expect(rules.principalOf({ kind: 'operator', operator: operator('ann', 'a@example.com', new Date()) })).toBe(
      undefined,
    );
    expect(rules.principalOf({ kind: 'reseller', reseller: reseller('active') })).toBeUndefined();
    expect(rules.principalOf(undefined)).toBeUndefined();
  });

  it('lets an active reseller into the portal, and no suspended or closed one, operator or missing row', () => {
    const rules = portalRules();
    expect(rules.principalOf({ kind: 'reseller', reseller: reseller('active') })).toEqual({
      reseller: reseller('active'),
    });
    expect(rules.principalOf({ kind: 'reseller', reseller: reseller('suspended') })).toBeUndefined();
    expect(rules.principalOf({ kind: 'reseller', reseller: reseller('closed') })).toBeUndefined();
    expect(rules.principalOf({ kind: 'operator', operator: operator('ann', 'ann@example.com') })).toBeUndefined();
    expect(rules.principalOf(undefined)).toBeUndefined();
  });
});

describe("a page's early read (readingEarly)", () => {
  const people = new Map<string, Operator>();
  const table = joinedRepository(people);
  const events: string[] = [];
  // The session read answers a little later; the list read settles well after it has.
  let sessionAnswered = Promise.resolve();
  const repository: WebSessionRepository = {
    ...table.repository,
    find: async (id) => {
      events.push('session read started');
      sessionAnswered = new Promise((resolve) => setTimeout(resolve, 20));
      await sessionAnswered;
      events.push('session read answered');
      return table.repository.find(id);
    },
  };
  const sessions = new WebSessions(repository, fixedClock('2026-11-21T10:00:00Z'), {
    idleMs: 30 * 60_000,
    absoluteMs: 12 * 3_600_000,
  });
  const rules: AreaRules<Operator, 'public' | 'viewer'> = {
    publicAccess: ['public'],
    principalOf: (named) => (named?.kind === 'operator' && !named.operator.disabledAt ? named.operator : undefined),
    allows: (access, _person, session) => access === 'viewer' && session.stage === 'signed_in',
    redirectFor: () => '/sign-in',
    actorOf: (person) => ({ kind: 'operator', id: person.id, label: person.email }),
    layout: () => ({ nav: [] }),
  };
  let failRead = false;
  const pages: ReadonlyArray<Page<Operator, 'public' | 'viewer'>> = [
    readingEarly<Operator, 'public' | 'viewer', string>({
      path: '/list',
      access: 'viewer',
      read: async (request) => {
        events.push('list read started');
        await new Promise((resolve) => setTimeout(resolve, 0));
        await sessionAnswered;
        await new Promise((resolve) => setTimeout(resolve, 150));
        events.push('list read settled');
        if (failRead) throw new Error('the list read failed');
        return `rows for ${String(request.query.q)}`;
      },
      handler: async (ctx, read) => ctx.csv('list.csv', [[await read, ctx.principal.email]]),
    }),
  ];
  const server = consoleAreaOf({ pages, rules, sessions });
  const signIn = (principalId: string) => signedInCookie(sessions, principalId);
  const get = async (cookie: string) => {
    const answer = await request(server).get('/admin/list?q=x').set('cookie', cookie);
    events.push('answered');
    return answer;
  };

  beforeEach(() => {
    table.rows.clear();
    people.clear();
    people.set('ann', operator('ann', 'ann@example.com'));
    events.length = 0;
    failRead = false;
  });

  it('starts after the session read for a session this process has not served before', async () => {
    const answer = await get(await signIn('ann'));
    expect(answer.text).toBe('rows for x,ann@example.com\r\n');
    expect(events).toEqual([
      'session read started',
      'session read answered',
      'list read started',
      'list read settled',
      'answered',
    ]);
  });

  it('starts beside the session read for a session this process served signed in before', async () => {
    const cookie = await signIn('ann');
    await get(cookie);
    events.length = 0;

    const answer = await get(cookie);
    expect(answer.text).toBe('rows for x,ann@example.com\r\n');
    expect(events.indexOf('list read started')).toBeLessThan(events.indexOf('session read answered'));
  });

  it('is never shown when the session read refuses the request, and the answer waits for it to settle', async () => {
    const cookie = await signIn('ann');
    await get(cookie);
    people.set('ann', operator('ann', 'ann@example.com', new Date('2026-11-21T09:59:00Z')));
    events.length = 0;

    const answer = await get(cookie);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/admin/sign-in');
    expect(answer.text).not.toContain('rows for');
    expect(events).toContain('list read started');
    expect(events.indexOf('list read started')).toBeLessThan(events.indexOf('session read answered'));
    expect(events).toContain('list read settled');
    expect(events.indexOf('list read settled')).toBeLessThan(events.indexOf('answered'));

    // The session is over, so the next request reads nothing early.
    events.length = 0;
    expect((await get(cookie)).status).toBe(303);
    expect(events).not.toContain('list read started');
  });

  it('drops a failed read quietly when the session read refuses the request', async () => {
    const cookie = await signIn('ann');
    await get(cookie);
    table.rows.clear();
    failRead = true;

    const answer = await get(cookie);
    expect(answer.status).toBe(303);
    expect(answer.headers.location).toBe('/admin/sign-in');
  });

  it('is not started for a cookie of no session', async () => {
    expect((await get(`console_session=${'x'.repeat(43)}`)).status).toBe(303);
    expect(events).not.toContain('list read started');
  });
});

/** The cookie of a console session signed in for `principalId`, started on `sessions`. */
async function signedInCookie(sessions: WebSessions, principalId: string): Promise<string> {
  const session = await sessions.start({
    area: 'console',
    principalKind: 'operator',
    principalId,
    stage: 'signed_in',
    clientIp: null,
    userAgent: null,
  });
  return `console_session=${session.id}`;
}
