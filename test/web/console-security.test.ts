import request from 'supertest';
import { CONSOLE_PAGES } from '../../src/web/console/console-pages';
import { SECURITY_HEADERS } from '../../src/web/security';
import { startHarness, type Harness } from '../support/harness';
import { CONSOLE, createOperator, csrfOf, signInOverHttp, type TestOperator, nextTotpCode } from '../support/web';

describe('console security over HTTP', () => {
  let h: Harness;
  let admin: TestOperator;
  let viewer: TestOperator;

  beforeAll(async () => {
    h = await startHarness({ before: (module) => [module.console({ mountPath: CONSOLE })] });
    admin = await createOperator(h, 'admin@example.com', 'admin');
    viewer = await createOperator(h, 'viewer@example.com', 'viewer', { withTotp: false });
  });
  afterAll(() => h.close());

  it('sends the security headers on pages and on static files', async () => {
    for (const path of ['/sign-in', `/static/htmx-4.0.1.min.js`, '/static/web.css']) {
      const reply = await h.http.get(`${CONSOLE}${path}`);
      expect(reply.status).toBe(200);
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        expect(reply.headers[name.toLowerCase()]).toBe(value);
    }
    const csp = SECURITY_HEADERS['Content-Security-Policy']!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("frame-ancestors 'none'");
  });

  it('serves the pinned htmx build from our own process', async () => {
    const reply = await h.http.get(`${CONSOLE}/static/htmx-4.0.1.min.js`);
    expect(reply.headers['content-type']).toContain('javascript');
    expect(require('htmx.org/package.json').version).toBe('4.0.1');
  });

  it('refuses a POST without the CSRF token with 403 and changes nothing', async () => {
    const { agent } = await signInOverHttp(h, admin);
    const before = await h.module.webSessions.list('console');
    const reply = await agent
      .post(`${CONSOLE}/sessions/${before[0]!.idHash.slice(0, 16)}/revoke`)
      .type('form')
      .send({});
    expect(reply.status).toBe(403);
    expect((await h.module.webSessions.list('console')).length).toBe(before.length);
  });

  it('refuses a POST whose Origin or Sec-Fetch-Site is another site, even with the token', async () => {
    const { agent, csrf } = await signInOverHttp(h, admin);
    const sessions = await h.module.webSessions.list('console');
    const target = sessions[0]!.idHash.slice(0, 16);
    const foreign = await agent
      .post(`${CONSOLE}/sessions/${target}/revoke`)
      .set('Origin', 'https://evil.example')
      .type('form')
      .send({ _csrf: csrf });
    expect(foreign.status).toBe(403);
    const crossSite = await agent
      .post(`${CONSOLE}/sessions/${target}/revoke`)
      .set('Sec-Fetch-Site', 'cross-site')
      .type('form')
      .send({ _csrf: csrf });
    expect(crossSite.status).toBe(403);
    expect((await h.module.webSessions.list('console')).length).toBe(sessions.length);
  });

  it('never signs in a session id set before sign-in (fixation)', async () => {
    const planted = 'A'.repeat(43);
    const agent = request.agent(h.server);
    const form = await agent.get(`${CONSOLE}/sign-in`).set('Cookie', `console_session=${planted}`);
    const reply = await agent
      .post(`${CONSOLE}/sign-in`)
      .set(
        'Cookie',
        `console_session=${planted}; console_pre=${/console_pre=([^;]+)/.exec(String(form.headers['set-cookie']))![1]}`,
      )
      .type('form')
      .send({ _csrf: csrfOf(form.text), email: viewer.email, password: viewer.password });
    expect(reply.status).toBe(303);
    const issued = /console_session=([^;]+)/.exec(String(reply.headers['set-cookie']))![1];
    expect(issued).not.toBe(planted);
    const withPlanted = await request(h.server).get(`${CONSOLE}/`).set('Cookie', `console_session=${planted}`);
    expect(withPlanted.status).toBe(303);
  });

  it('gives a new session id after the second factor too', async () => {
    const agent = request.agent(h.server);
    const form = await agent.get(`${CONSOLE}/sign-in`);
    const first = await agent
      .post(`${CONSOLE}/sign-in`)
      .type('form')
      .send({ _csrf: csrfOf(form.text), email: admin.email, password: admin.password });
    const afterPassword = /console_session=([^;]+)/.exec(String(first.headers['set-cookie']))![1];
    const step = await agent.get(`${CONSOLE}/sign-in/code`);
    const second = await agent
      .post(`${CONSOLE}/sign-in/code`)
      .type('form')
      .send({ _csrf: csrfOf(step.text), code: nextTotpCode(h, admin.totpSecret!) });
    const afterCode = /console_session=([^;]+)/.exec(String(second.headers['set-cookie']))![1];
    expect(afterCode).not.toBe(afterPassword);
    // The half-signed-in id is gone.
    expect((await request(h.server).get(`${CONSOLE}/`).set('Cookie', `console_session=${afterPassword}`)).status).toBe(
      303,
    );
  });

  it('refuses a TOTP code used once already, even within its 30 seconds', async () => {
    const code = nextTotpCode(h, admin.totpSecret!);
    const codeStep = async (agent: ReturnType<typeof request.agent>) => {
      const form = await agent.get(`${CONSOLE}/sign-in`);
      await agent
        .post(`${CONSOLE}/sign-in`)
        .type('form')
        .send({ _csrf: csrfOf(form.text), email: admin.email, password: admin.password });
      const step = await agent.get(`${CONSOLE}/sign-in/code`);
      return agent
        .post(`${CONSOLE}/sign-in/code`)
        .type('form')
        .send({ _csrf: csrfOf(step.text), code });
    };
    const first = await codeStep(request.agent(h.server));
    expect([first.status, first.headers.location]).toEqual([303, `${CONSOLE}/`]);
    // The same code replayed (seen over a shoulder, or from a captured request) within its window.
    const replayed = await codeStep(request.agent(h.server));
    expect(replayed.status).toBe(401);
    expect(replayed.text).toContain('That code is not right');
  });

  it('refuses a viewer on every state-changing page, route by route', async () => {
    const { agent, csrf } = await signInOverHttp(h, viewer);
    const changes = CONSOLE_PAGES.filter((p) => p.method === 'post' && p.access === 'admin');
    expect(changes.length).toBeGreaterThan(0);
    const auditBefore = (await h.module.services.audit.find({ limit: 1000 })).length;
    for (const page of changes) {
      const path = page.path.replace(/:(\w+)/g, 'x');
      const reply = await agent.post(`${CONSOLE}${path}`).type('form').send({ _csrf: csrf });
      expect([page.path, reply.status]).toEqual([page.path, 403]);
    }
    expect((await h.module.services.audit.find({ limit: 1000 })).length).toBe(auditBefore);
  });

  it('states an access rule on every page, and every POST needs admin unless it is a sign-in step', () => {
    for (const page of CONSOLE_PAGES) {
      expect(['public', 'sign_in_step', 'viewer', 'admin']).toContain(page.access);
      if (page.method === 'post' && page.access === 'viewer')
        throw new Error(`${page.path} changes something for viewers`);
    }
  });

  it('throttles a sign-in storm per address with one generic answer', async () => {
    const agent = request.agent(h.server);
    const form = await agent.get(`${CONSOLE}/sign-in`);
    const csrf = csrfOf(form.text);
    const statuses: number[] = [];
    for (let i = 0; i < 60; i++) {
      const reply = await agent
        .post(`${CONSOLE}/sign-in`)
        .type('form')
        .send({ _csrf: csrf, email: `guess${i % 7}@example.com`, password: `wrong password ${i}` });
      statuses.push(reply.status);
    }
    expect(statuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    // The right password from the throttled address is refused too, until the block ends.
    const blocked = await agent
      .post(`${CONSOLE}/sign-in`)
      .type('form')
      .send({ _csrf: csrf, email: viewer.email, password: viewer.password });
    expect(blocked.status).toBe(429);
    // Retry-After in whole seconds: when the block ends, as the page says in minutes.
    const retryAfter = Number(blocked.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3_600).toBe(true);
    expect(blocked.text).toContain(`Try again in ${Math.ceil(retryAfter / 60)} minute(s)`);
    h.clock.advance(3_600_000);
    const later = await agent
      .post(`${CONSOLE}/sign-in`)
      .type('form')
      .send({ _csrf: csrf, email: viewer.email, password: viewer.password });
    expect(later.status).toBe(303);
  });
});
