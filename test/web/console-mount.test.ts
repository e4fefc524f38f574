import request from 'supertest';
import { parseSettings } from '../../src/config/settings';
import { createServerApp } from '../../src/server';
import { startHarness, type Harness } from '../support/harness';
import { createOperator, csrfOf, type TestOperator } from '../support/web';

/** How the stand-alone server mounts the console: on by default under /admin, configurable, off with a setting; cookies per HTTPS. */
describe('the console in the stand-alone server', () => {
  let h: Harness;
  let viewer: TestOperator;
  beforeAll(async () => {
    h = await startHarness();
    viewer = await createOperator(h, 'viewer@example.com', 'viewer', { withTotp: false });
  });
  afterAll(() => h.close());

  const serverApp = (settings: Record<string, unknown>) =>
    createServerApp(h.module, parseSettings({ masterKey: 'unused', ...settings })).callback();

  it('serves the console under /admin by default, beside the API', async () => {
    const app = serverApp({});
    expect((await request(app).get('/admin/sign-in')).status).toBe(200);
    expect((await request(app).get('/admin')).headers.location).toBe('/admin/');
    expect((await request(app).get('/billing/credits').set(h.headers())).status).toBe(200);
  });

  it('mounts it where CONSOLE_PATH says, and not at all with CONSOLE=false', async () => {
    expect((await request(serverApp({ consolePath: '/ops/console' })).get('/ops/console/sign-in')).status).toBe(200);
    const off = await request(serverApp({ console: false })).get('/admin/sign-in');
    expect(off.status).toBe(404);
    expect(off.body).toEqual({ error: 'No route for GET /admin/sign-in' });
  });

  it('behind a TLS proxy (TRUST_PROXY) names the cookie __Host-console, Secure, Path=/', async () => {
    const agent = request.agent(serverApp({ trustProxy: true }));
    const form = await agent.get('/admin/sign-in').set('X-Forwarded-Proto', 'https');
    const pre = String(form.headers['set-cookie']);
    expect(pre).toMatch(/__Host-console-pre=[^;]+; path=\/; samesite=lax; secure; httponly/i);
    const signedIn = await agent
      .post('/admin/sign-in')
      .set('X-Forwarded-Proto', 'https')
      .set('Cookie', pre.split(';')[0]!)
      .type('form')
      .send({ _csrf: csrfOf(form.text), email: viewer.email, password: viewer.password });
    expect(signedIn.status).toBe(303);
    expect(String(signedIn.headers['set-cookie'])).toMatch(
      /__Host-console=[\w-]{43}; path=\/; samesite=lax; secure; httponly/i,
    );
  });

  it('over plain HTTP names it console_session with the mount as its path, never Secure', async () => {
    const form = await request(serverApp({})).get('/admin/sign-in');
    const cookie = String(form.headers['set-cookie']);
    expect(cookie).toMatch(/console_pre=[^;]+; path=\/admin; samesite=lax; httponly/i);
    expect(cookie).not.toMatch(/secure/i);
  });
});
