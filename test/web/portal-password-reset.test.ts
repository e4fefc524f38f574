import request from 'supertest';
import { eventually, smtpServer } from '../support/smtp-server';
import { type Harness, startHarness } from '../support/harness';
import { csrfOf, TEST_ACTOR } from '../support/web';

const PORTAL = '/portal';
const OLD_PASSWORD = 'portal password 0001';
const NEW_PASSWORD = 'portal password 0002';
const PUBLIC_URL = 'https://resellers.example.com';

/** The link of a mail, quoted-printable soft breaks and `=3D` undone. */
const linkIn = (raw: string) => {
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return text.match(/https:\/\/resellers\.example\.com\/portal\/invitation\?token=[\w-]+/)![0];
};

async function requestReset(h: Harness, email: string, agent = request.agent(h.server)) {
  // The sign-in page's form carries the same pre-session CSRF token (the reset page has none without mail).
  const form = await agent.get(`${PORTAL}/sign-in`);
  return agent
    .post(`${PORTAL}/password-reset`)
    .type('form')
    .send({ _csrf: csrfOf(form.text), email });
}

async function signIn(h: Harness, password: string) {
  const agent = request.agent(h.server);
  const form = await agent.get(`${PORTAL}/sign-in`);
  const res = await agent
    .post(`${PORTAL}/sign-in`)
    .type('form')
    .send({ _csrf: csrfOf(form.text), email: h.reseller.email, password });
  return { agent, status: res.status };
}

/** docs/portal.md#password-reset-by-email, with a real SMTP server in the test's process. */
describe('portal password reset by email', () => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  beforeAll(async () => {
    smtp = await smtpServer();
    h = await startHarness({
      before: (m) => [m.portal({ mountPath: PORTAL })],
      settings: { smtpUrl: smtp.url, publicUrl: PUBLIC_URL, authMaxFailures: 5 },
    });
    const { token } = await h.module.services.portalLogins.invite(TEST_ACTOR, h.reseller.email);
    await h.module.services.portalLogins.acceptInvitation(token, OLD_PASSWORD, OLD_PASSWORD);
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  it('links to the reset from the sign-in page', async () => {
    const page = await request(h.server).get(`${PORTAL}/sign-in`);
    expect(page.text).toContain(`href="${PORTAL}/password-reset" id="forgot-password"`);
  });

  it('mails a one-time link that sets a new password once, ends the old sessions, and works only once', async () => {
    const before = await signIn(h, OLD_PASSWORD);
    expect(before.status).toBe(303);
    const res = await requestReset(h, 'Reseller@Example.com');
    expect(res.status).toBe(200);
    expect(res.text).toContain('id="reset-sent"');
    const mail = await eventually(() => smtp.mails.find((m) => m.to.includes(h.reseller.email)), 'the reset mail');
    expect(mail.raw).toMatch(/Subject: Set a new password for your reseller portal/);
    const link = linkIn(mail.raw);
    const path = link.slice(PUBLIC_URL.length);

    const agent = request.agent(h.server);
    const form = await agent.get(path);
    expect(form.status).toBe(200);
    expect(form.text).toContain(h.reseller.email);
    const token = new URL(link).searchParams.get('token')!;
    const set = await agent
      .post(`${PORTAL}/invitation`)
      .type('form')
      .send({ _csrf: csrfOf(form.text), token, password: NEW_PASSWORD, confirmation: NEW_PASSWORD });
    expect(set.status).toBe(303);
    expect((await signIn(h, OLD_PASSWORD)).status).toBe(401);
    expect((await signIn(h, NEW_PASSWORD)).status).toBe(303);
    // The session signed in with the old password is over.
    expect((await before.agent.get(`${PORTAL}/`)).status).toBe(303);
    // Used once.
    expect((await request(h.server).get(path)).text).toContain('expired or was used already');
    const audit = await h.module.services.audit.find({ actionPrefix: 'reseller.portal.password', limit: 5 });
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['reseller.portal.password_reset_requested', 'reseller.portal.password_set']),
    );
  });

  it('answers an email that is no reseller exactly alike and sends nothing', async () => {
    const sent = smtp.mails.length;
    const known = await requestReset(h, h.reseller.email);
    const unknown = await requestReset(h, 'nobody@example.com');
    const words = (text: string) => text.replace(/value="[^"]*"|X-CSRF-Token&quot;:&quot;[\w-]+/g, '');
    expect([unknown.status, words(unknown.text)]).toEqual([known.status, words(known.text)]);
    await eventually(() => (smtp.mails.length === sent + 1 ? true : undefined), 'the one mail');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(smtp.mails.slice(sent).map((m) => m.to)).toEqual([[h.reseller.email]]);
  });

  it('replaces the earlier link when asked again, and a link expires after 24 hours', async () => {
    const from = smtp.mails.length;
    await requestReset(h, h.reseller.email, request.agent(h.server));
    const first = linkIn((await eventually(() => smtp.mails[from], 'the first mail')).raw);
    await requestReset(h, h.reseller.email, request.agent(h.server));
    const second = linkIn((await eventually(() => smtp.mails[from + 1], 'the second mail')).raw);
    expect((await request(h.server).get(first.slice(PUBLIC_URL.length))).text).toContain('expired or was used already');
    expect((await request(h.server).get(second.slice(PUBLIC_URL.length))).text).not.toContain('expired');
    h.clock.advance(24 * 3_600_000 + 1);
    expect((await request(h.server).get(second.slice(PUBLIC_URL.length))).text).toContain(
      'expired or was used already',
    );
  });

  it('throttles requests from one address for one email, with Retry-After', async () => {
    const agent = request.agent(h.server);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await requestReset(h, 'throttled@example.com', agent)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const res = await requestReset(h, 'throttled@example.com', agent);
    expect(res.status).toBe(429);
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses a request without the CSRF token', async () => {
    const res = await request(h.server).post(`${PORTAL}/password-reset`).type('form').send({ email: h.reseller.email });
    expect(res.status).toBe(403);
  });
});

describe('portal password reset without mail', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ before: (m) => [m.portal({ mountPath: PORTAL })], settings: { publicUrl: PUBLIC_URL } });
  });
  afterAll(() => h.close());

  it('says to ask the provider for an invitation, on the page and after a post', async () => {
    const page = await request(h.server).get(`${PORTAL}/password-reset`);
    expect(page.text).toContain('id="reset-unavailable"');
    expect(page.text).not.toContain('Mail me a link');
    const posted = await requestReset(h, h.reseller.email);
    expect(posted.status).toBe(200);
    expect(posted.text).toContain('Ask your provider for an invitation link');
    expect(await h.module.services.audit.find({ actionPrefix: 'reseller.portal.password_reset', limit: 1 })).toEqual(
      [],
    );
  });
});
