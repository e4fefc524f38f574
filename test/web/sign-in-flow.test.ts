import request from 'supertest';
import { startHarness, type Harness } from '../support/harness';
import { CONSOLE, createOperator, csrfOf, TEST_ACTOR } from '../support/web';

const PORTAL = '/portal';
const PASSWORD = 'correct horse battery staple';

/** The console and the portal sign in through one flow (src/web/sign-in-flow.ts), each with its own login service. */
describe('one sign-in flow for the console and the portal', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness({
      before: (module) => [module.console({ mountPath: CONSOLE }), module.portal({ mountPath: PORTAL })],
    });
    await createOperator(h, 'viewer@example.com', 'viewer', { withTotp: false, password: PASSWORD });
    const { token } = await h.module.services.portalLogins.invite(TEST_ACTOR, h.reseller.email);
    await h.module.services.portalLogins.acceptInvitation(token, PASSWORD, PASSWORD);
  });
  afterAll(() => h.close());

  const areas = [
    { mount: CONSOLE, email: 'viewer@example.com', prefix: 'operator', message: 'an operator' },
    { mount: PORTAL, email: 'reseller@example.com', prefix: 'reseller.portal', message: 'a reseller' },
  ] as const;

  async function attempt(mount: string, email: string, password: string) {
    const agent = request.agent(h.server);
    const form = await agent.get(`${mount}/sign-in`);
    return agent
      .post(`${mount}/sign-in`)
      .type('form')
      .send({ _csrf: csrfOf(form.text), email, password });
  }

  it.each(areas)(
    'refuses a wrong password at $mount with its own message and audits it with its own action',
    async (area) => {
      const reply = await attempt(area.mount, area.email, 'not the password');
      expect(reply.status).toBe(401);
      expect(reply.text).toContain(`do not match ${area.message} who may sign in`);
      const [entry] = await h.module.services.audit.find({ actionPrefix: `${area.prefix}.sign_in.failed`, limit: 1 });
      expect(entry?.after).toMatchObject({ step: 'password' });
    },
  );

  it.each(areas)('signs in at $mount and audits it', async (area) => {
    const reply = await attempt(area.mount, area.email, PASSWORD);
    expect([reply.status, reply.headers.location]).toEqual([303, `${area.mount}/`]);
    const [entry] = await h.module.services.audit.find({ actionPrefix: `${area.prefix}.sign_in`, limit: 1 });
    expect([entry?.action, entry?.actor.label]).toEqual([`${area.prefix}.sign_in`, area.email]);
  });

  it('throttles each area on its own, and a 429 says when to try again', async () => {
    let last = await attempt(CONSOLE, 'someone@example.com', 'guess');
    for (let i = 0; i < 60 && last.status !== 429; i++) last = await attempt(CONSOLE, `guess${i}@example.com`, 'guess');
    expect(last.status).toBe(429);
    expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
    // The storm at the console does not lock the same address out of the portal.
    const portal = await attempt(PORTAL, 'reseller@example.com', PASSWORD);
    expect(portal.status).toBe(303);

    let portalLast = portal;
    for (let i = 0; i < 60 && portalLast.status !== 429; i++)
      portalLast = await attempt(PORTAL, `guess${i}@example.com`, 'guess');
    expect(portalLast.status).toBe(429);
    expect(Number(portalLast.headers['retry-after'])).toBeGreaterThan(0);
    h.clock.advance(3_600_000);
  });
});
