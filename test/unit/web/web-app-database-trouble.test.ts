import request from 'supertest';
import { fixedClock } from '../../../src/core/common/clock';
import type { Logger } from '../../../src/core/common/logger';
import type { Operator } from '../../../src/core/operator/operator';
import type { AreaRules, Page } from '../../../src/web/page-table';
import { type WebSession, type WebSessionRepository, WebSessions } from '../../../src/web/sessions';
import { consoleAreaOf } from '../../support/web-area';

interface Person {
  readonly id: string;
}

/** The errors the drivers raise, shaped as mysql2 and knex raise them. */
const lost = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:3306'), { code: 'ECONNREFUSED' });
const lockWait = () =>
  Object.assign(new Error('Lock wait timeout exceeded'), { code: 'ER_LOCK_WAIT_TIMEOUT', errno: 1205 });
const deadlock = () => Object.assign(new Error('Deadlock found'), { code: 'ER_LOCK_DEADLOCK', errno: 1213 });

const operatorNamed = (id: string): Operator => ({
  id,
  email: `${id}@example.com`,
  role: 'viewer',
  hasPassword: true,
  hasSecondFactor: false,
  disabledAt: null,
  createdAt: new Date('2026-11-01T00:00:00Z'),
});

describe('a web page when the database is the trouble', () => {
  const logged: string[] = [];
  const logger: Logger = {
    info() {},
    warn() {},
    debug() {},
    error: (_fields: unknown, message?: string) => void logged.push(String(message)),
    child: () => logger,
  };
  const rows = new Map<string, WebSession>();
  let sessionReadFails: (() => Error) | undefined;
  let handlerFails: (() => Error) | undefined;
  const repository: WebSessionRepository = {
    insert: async (s) => void rows.set(s.idHash, s),
    find: async (id) => {
      if (sessionReadFails) throw sessionReadFails();
      const session = rows.get(id);
      return session && { session, principal: { kind: 'operator', operator: operatorNamed(session.principalId) } };
    },
    touch: async () => {},
    setData: async () => {},
    delete: async (id) => rows.delete(id),
    deleteForPrincipal: async () => 0,
    list: async () => [],
    purgeExpired: async () => 0,
  };
  const sessions = new WebSessions(repository, fixedClock('2026-11-21T10:00:00Z'), {
    idleMs: 30 * 60_000,
    absoluteMs: 12 * 3_600_000,
  });
  const rules: AreaRules<Person, 'public' | 'viewer'> = {
    publicAccess: ['public'],
    principalOf: (named) => (named?.kind === 'operator' ? { id: named.operator.id } : undefined),
    allows: (access, _person, session) => access === 'viewer' && session.stage === 'signed_in',
    redirectFor: () => '/sign-in',
    actorOf: (person) => ({ kind: 'operator', id: person.id, label: person.id }),
    layout: () => ({ nav: [] }),
  };
  const pages: ReadonlyArray<Page<Person, 'public' | 'viewer'>> = [
    {
      method: 'get',
      path: '/things',
      access: 'viewer',
      handler: async (ctx) => {
        if (handlerFails) throw handlerFails();
        return ctx.csv('things.csv', [['one']]);
      },
    },
  ];
  const server = consoleAreaOf({ pages, rules, sessions, logger });
  let cookie = '';

  beforeEach(async () => {
    rows.clear();
    logged.length = 0;
    sessionReadFails = undefined;
    handlerFails = undefined;
    const { id } = await sessions.start({
      area: 'console',
      principalKind: 'operator',
      principalId: 'ann',
      stage: 'signed_in',
      clientIp: null,
      userAgent: null,
    });
    cookie = `console_session=${id}`;
  });

  it('serves the page when the database answers', async () => {
    const res = await request(server).get('/admin/things').set('cookie', cookie);
    expect(res.status).toBe(200);
  });

  it('answers 503 with Retry-After, on a page of ours, when the session cannot be read', async () => {
    sessionReadFails = lost;
    const res = await request(server).get('/admin/things').set('cookie', cookie);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.type).toBe('text/html');
    expect(res.text).toContain('The database is not answering');
    expect(res.text).not.toContain('ECONNREFUSED');
    expect(logged).toEqual([]);
  });

  it.each([
    ['the database is unreachable', lost, 'The database is not answering'],
    ['a lock wait timed out', lockWait, 'The database waited too long'],
    ['a deadlock outlasted every retry', deadlock, 'The database is busy'],
  ])(
    'answers 503 with Retry-After when %s during the page, never claiming that nothing was done',
    async (_what, fails, says) => {
      handlerFails = fails;
      const res = await request(server).get('/admin/things').set('cookie', cookie);
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('2');
      expect(res.text).toContain(says);
      expect(res.text).not.toMatch(/nothing was done/);
      expect(res.text).not.toMatch(/ER_LOCK|ECONN/);
    },
  );

  it('keeps anything else a 500 naming the request id, logged', async () => {
    handlerFails = () => new Error('a bug');
    const res = await request(server).get('/admin/things').set('cookie', cookie);
    expect(res.status).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.text).toMatch(/request id [0-9A-Z]{26}/);
    expect(logged).toEqual(['unexpected error on a web page']);
  });

  it('answers a session read failing for another reason with a 500 page of ours, logged', async () => {
    sessionReadFails = () => new Error('a bug in the session store');
    const res = await request(server).get('/admin/things').set('cookie', cookie);
    expect(res.status).toBe(500);
    expect(res.type).toBe('text/html');
    expect(res.text).toMatch(/Something went wrong on our side \(request id [0-9A-Z]{26}\)/);
    expect(logged).toEqual(['unexpected error on a web page']);
  });
});
