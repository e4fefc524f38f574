import Koa from 'koa';
import request from 'supertest';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { startHarness, type Harness, TEST_MASTER_KEY } from '../support/harness';
import { CONSOLE, createOperator, signInOverHttp, TEST_ACTOR, type TestOperator } from '../support/web';

/** Every page starts by reading its session and whom it names: one statement, fresh on every request (both engines). */
describe("a console page's session read", () => {
  let h: Harness;
  let admin: TestOperator;

  beforeAll(async () => {
    h = await startHarness({ before: (module) => [module.console({ mountPath: CONSOLE })] });
    admin = await createOperator(h, 'admin@example.com', 'admin');
  });
  afterAll(() => h.close());

  it('reads the session and the operator it names in one statement', async () => {
    // A module given the harness's knex, as a host gives its own: every statement it sends, the
    // hot-path reads too, goes through knex and is heard here.
    const hosted: ResellerModule = await createResellerModule({
      database: h.module.knex,
      clock: h.clock,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', backgroundJobs: false },
    });
    try {
      const app = new Koa();
      app.use(hosted.console({ mountPath: CONSOLE }));
      const { id } = await h.module.webSessions.start({
        area: 'console',
        principalKind: 'operator',
        principalId: (await h.module.services.operators.byEmail(admin.email)).id,
        stage: 'signed_in',
        clientIp: null,
        userAgent: null,
      });
      const cookie = `console_session=${id}`;
      const sent: string[] = [];
      const heard = (query: { sql: string }) => sent.push(query.sql.toLowerCase());
      h.module.knex.on('query', heard);
      try {
        const page = await request(app.callback()).get(`${CONSOLE}/domains`).set('cookie', cookie);
        expect(page.status).toBe(200);
      } finally {
        h.module.knex.off('query', heard);
      }
      const sessionReads = sent.filter((sql) => /web_sessions|operators/.test(sql));
      expect(sessionReads).toHaveLength(1);
      expect(sessionReads[0]).toMatch(/from web_sessions[\s\S]*join operators/);
      expect(sent).toHaveLength(2);
    } finally {
      await hosted.close();
    }
  });

  it('signs out an operator disabled since its last page at its next one', async () => {
    const viewer = await createOperator(h, 'disabled-later@example.com', 'viewer', { withTotp: false });
    const { agent } = await signInOverHttp(h, viewer);
    expect((await agent.get(`${CONSOLE}/domains`)).status).toBe(200);
    const before = (await h.module.webSessions.list('console')).length;

    await h.module.services.operators.disable(TEST_ACTOR, viewer.email);
    const next = await agent.get(`${CONSOLE}/domains`);
    expect(next.status).toBe(303);
    expect(next.headers.location).toBe(`${CONSOLE}/sign-in`);
    expect((await h.module.webSessions.list('console')).length).toBe(before - 1);
  });

  it('refuses a revoked session at its next request', async () => {
    const viewer = await createOperator(h, 'revoked@example.com', 'viewer', { withTotp: false });
    const { agent } = await signInOverHttp(h, viewer);
    expect((await agent.get(`${CONSOLE}/domains`)).status).toBe(200);
    const { id } = await h.module.services.operators.byEmail(viewer.email);
    const [mine, ...others] = await h.module.webSessions.list('console', { kind: 'operator', id });
    expect(others).toHaveLength(0);
    // Revoked as the console's sessions page does, by another process for all this one knows.
    expect(await h.module.webSessions.end(mine!.idHash)).toBe(true);

    const next = await agent.get(`${CONSOLE}/domains`);
    expect(next.status).toBe(303);
    expect(next.headers.location).toBe(`${CONSOLE}/sign-in`);
  });
});
