import type { BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { TOKENS } from '../../src/core/tokens';
import { screenshot } from '../support/browser';
import {
  CONSOLE,
  createOperator,
  csrfOf,
  signInOverHttp,
  signInToConsole,
  startWebHarness,
  submit,
  TEST_ACTOR,
  type TestOperator,
  type WebHarness,
} from '../support/web';

const PORTAL = '/portal';
const PASSWORD = 'portal password 0001';

/**
 * The webhook pages of the console (every endpoint, operator-wide ones included) and of the portal
 * (the reseller's own), in a real browser on the engine of TEST_DB (docs/console.md#pages,
 * docs/portal.md#pages).
 */
describe('webhook pages', () => {
  let h: WebHarness;
  let admin: TestOperator;
  let context: BrowserContext;
  let page: Page;
  let resellerId: string;
  let otherId: string;

  beforeAll(async () => {
    h = await startWebHarness({ before: (m) => [m.portal({ mountPath: PORTAL })] });
    admin = await createOperator(h, 'admin@example.com', 'admin');
    resellerId = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
    otherId = (await h.module.services.resellers.create('other@example.com', 'default', 1_000)).reseller.id;
    for (const email of [h.reseller.email, 'other@example.com']) {
      const { token } = await h.module.services.portalLogins.invite(TEST_ACTOR, email);
      await h.module.services.portalLogins.acceptInvitation(token, PASSWORD, PASSWORD);
    }
    context = await h.newContext();
    page = await context.newPage();
    page.on('dialog', (dialog) => dialog.accept());
  });
  afterAll(async () => {
    await context.close();
    await h.close();
  });

  /** A delivery to the endpoint that ran out of attempts (the worker does not run in these tests). */
  const deadDeliveryTo = async (endpointId: string, owner: string) => {
    await h.module.services.credit.adjust(owner, 100, null);
    await h.module.container.get(TOKENS.outboxDispatcher).drain();
    const [row] = await h.module.knex('webhook_deliveries').where({ endpoint_id: endpointId, status: 'pending' });
    await h.module
      .knex('webhook_deliveries')
      .where({ id: row.id })
      .update({ status: 'dead', attempts: 8, last_status: 500, last_error: 'HTTP 500' });
    return String(row.id);
  };

  it('lets an admin add an operator-wide endpoint, shows its secret once, rotates it, lists and replays its deliveries, and removes it', async () => {
    await signInToConsole(page, h, admin);
    await page.goto(`${CONSOLE}/webhooks`);
    expect(await page.textContent('h1')).toBe('Webhooks');
    await page.fill('#url', 'https://hooks.example.com/platform');
    await page.check('input[name=events][value="credit.changed"]');
    await submit(page, '#add-endpoint button[type=submit]');
    const secret = (await page.textContent('#webhook-secret'))!.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    const endpointId = (await page.textContent('#endpoint-id'))!.trim();
    await screenshot(page, 'console-webhook-added');
    await Promise.all([page.waitForEvent('load'), page.click('text=Go to the endpoint')]);
    expect(await page.textContent('#endpoint-owner')).toContain('operator');
    expect(await page.content()).not.toContain(secret);

    await submit(page, '#rotate-secret');
    const rotated = (await page.textContent('#webhook-secret'))!.trim();
    expect(rotated).not.toBe(secret);
    expect(await page.textContent('.notice')).toContain('keeps signing beside it');

    const deliveryId = await deadDeliveryTo(endpointId, resellerId);
    await page.goto(`${CONSOLE}/webhooks/deliveries?status=dead`);
    expect(await page.textContent('#deliveries')).toContain('credit.changed');
    await screenshot(page, 'console-webhook-deliveries');
    await page.goto(`${CONSOLE}/webhooks/deliveries?status=delivered`);
    expect(await page.textContent('#deliveries')).toContain('No deliveries match');
    await page.goto(`${CONSOLE}/webhooks/deliveries?status=dead&endpoint=${endpointId}`);
    await submit(page, `form[action$="/webhooks/deliveries/${deliveryId}/replay"] button`);
    expect(await page.textContent('.notice')).toContain('pending again');
    expect((await h.module.services.webhooks.deliveries({ endpointId }))[0]).toMatchObject({
      id: deliveryId,
      status: 'pending',
      attempts: 0,
    });

    await page.goto(`${CONSOLE}/webhooks/${endpointId}`);
    await submit(page, '#remove');
    expect(await page.textContent('.notice')).toContain('removed');
    expect(await h.module.services.webhooks.list()).toEqual([]);
    const actions = (await h.module.services.audit.find({ actorKind: 'operator', limit: 20 })).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['webhook.add', 'webhook.secret.rotate', 'webhook.delivery.replay', 'webhook.remove']),
    );
  });

  it("adds a reseller's endpoint from the console and enables it again after it was disabled", async () => {
    await page.goto(`${CONSOLE}/webhooks`);
    await page.fill('#url', 'https://hooks.example.com/reseller');
    await page.fill('#reseller', 'other@example.com');
    await submit(page, '#add-endpoint button[type=submit]');
    const endpointId = (await page.textContent('#endpoint-id'))!.trim();
    await page.goto(`${CONSOLE}/webhooks`);
    expect(await page.textContent('#endpoints')).toContain('other@example.com');
    await h.module
      .knex('webhook_endpoints')
      .where({ id: endpointId })
      .update({ status: 'disabled', disabled_reason: 'HTTP 410' });
    await page.goto(`${CONSOLE}/webhooks/${endpointId}`);
    expect(await page.textContent('#endpoint-status')).toBe('disabled');
    await submit(page, '#enable');
    expect(await page.textContent('#endpoint-status')).toBe('enabled');
    await h.module.services.webhooks.remove(endpointId);
  });

  it("lets a reseller manage its own endpoints in the portal and shows it no one else's", async () => {
    const { endpoint: operatorWide } = await h.module.services.webhooks.add('operator', 'https://hooks.example.com/op');
    const { endpoint: others } = await h.module.services.webhooks.add(
      { resellerId: otherId },
      'https://other.example.com/h',
    );
    const portal = await h.newContext();
    const p = await portal.newPage();
    p.on('dialog', (dialog) => dialog.accept());
    try {
      await p.goto(`${PORTAL}/sign-in`);
      await p.fill('#email', h.reseller.email);
      await p.fill('#password', PASSWORD);
      await submit(p, 'form[action$="/sign-in"] button[type=submit]');
      await p.goto(`${PORTAL}/webhooks`);
      await p.fill('#url', 'https://mine.example.com/hooks');
      expect(await p.locator('#reseller').count()).toBe(0);
      await submit(p, '#add-endpoint button[type=submit]');
      const secret = (await p.textContent('#webhook-secret'))!.trim();
      expect(secret).toMatch(/^whsec_/);
      const mine = (await p.textContent('#endpoint-id'))!.trim();
      await p.goto(`${PORTAL}/webhooks`);
      const listed = (await p.textContent('#endpoints'))!;
      expect(listed).toContain('mine.example.com');
      expect(listed).not.toContain(operatorWide.url);
      expect(listed).not.toContain(others.url);
      await screenshot(p, 'portal-webhooks');
      const stored = await h.module.services.webhooks.endpoint(mine);
      expect(stored.resellerId).toBe(resellerId);
      await p.goto(`${PORTAL}/webhooks/${mine}`);
      await submit(p, '#remove');
      expect(await h.module.services.webhooks.list(resellerId)).toEqual([]);
    } finally {
      await portal.close();
      await h.module.services.webhooks.remove(operatorWide.id);
      await h.module.services.webhooks.remove(others.id);
    }
  });

  it("answers another reseller's endpoint and delivery ids in the portal exactly as missing ones, and changes nothing", async () => {
    const { endpoint: others } = await h.module.services.webhooks.add(
      { resellerId: otherId },
      'https://other.example.com/x',
    );
    const deliveryId = await deadDeliveryTo(others.id, otherId);
    const agent = request.agent(h.server);
    const form = await agent.get(`${PORTAL}/sign-in`);
    await agent
      .post(`${PORTAL}/sign-in`)
      .type('form')
      .send({ _csrf: csrfOf(form.text), email: h.reseller.email, password: PASSWORD });
    const csrf = csrfOf((await agent.get(`${PORTAL}/webhooks`)).text);
    const before = {
      endpoint: await h.module.services.webhooks.endpoint(others.id),
      deliveries: await h.module.services.webhooks.deliveries({ endpointId: others.id }),
    };
    const same = (text: string) =>
      text
        .replace(new RegExp(`${others.id}|${deliveryId}|whe_MISSING|dlv_MISSING`, 'g'), 'X')
        .replace(/value="[^"]+"/g, '');
    for (const [method, path] of [
      ['get', '/webhooks/ID'],
      ['post', '/webhooks/ID/rotate-secret'],
      ['post', '/webhooks/ID/enable'],
      ['post', '/webhooks/ID/remove'],
      ['get', '/webhooks/deliveries?endpoint=ID'],
      ['post', '/webhooks/deliveries/DLV/replay'],
    ] as const) {
      const call = (id: string, dlv: string) => {
        const url = `${PORTAL}${path.replace('ID', id).replace('DLV', dlv)}`;
        return method === 'get' ? agent.get(url) : agent.post(url).type('form').send({ _csrf: csrf });
      };
      const theirs = await call(others.id, deliveryId);
      const missing = await call('whe_MISSING', 'dlv_MISSING');
      expect([path, theirs.status]).toEqual([path, 404]);
      expect([path, same(theirs.text)]).toEqual([path, same(missing.text)]);
    }
    const listed = await agent.get(`${PORTAL}/webhooks/deliveries?status=dead`);
    expect(listed.text).not.toContain(deliveryId);
    expect({
      endpoint: await h.module.services.webhooks.endpoint(others.id),
      deliveries: await h.module.services.webhooks.deliveries({ endpointId: others.id }),
    }).toEqual(before);
    await h.module.services.webhooks.remove(others.id);
  });

  it('refuses changes from a viewer in the console', async () => {
    const viewer = await createOperator(h, 'viewer@example.com', 'viewer', { withTotp: false });
    const { agent, csrf } = await signInOverHttp(h, viewer);
    const listed = await agent.get(`${CONSOLE}/webhooks`);
    expect(listed.status).toBe(200);
    expect(listed.text).not.toContain('id="add-endpoint"');
    const refused = await agent
      .post(`${CONSOLE}/webhooks`)
      .type('form')
      .send({ _csrf: csrf, url: 'https://x.example.com/h' });
    expect(refused.status).toBe(403);
    expect(await h.module.services.webhooks.list()).toEqual([]);
  });
});
