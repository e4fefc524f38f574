import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyPlatformEvent } from '../../src/core/common/events';
import { NO_MAIL } from '../../src/core/mail/mailer';
import { TOKENS } from '../../src/core/tokens';
import { givenDomain } from '../support/domains';
import { eventually, smtpServer } from '../support/smtp-server';
import { startHarness, type Harness } from '../support/harness';

describe('mail and expiry notices', () => {
  let h: Harness;
  let smtp: Awaited<ReturnType<typeof smtpServer>>;
  let resellerId: string;
  beforeAll(async () => {
    smtp = await smtpServer();
    h = await startHarness({
      settings: {
        smtpUrl: smtp.url,
        mailFrom: 'Reseller platform <platform@example.com>',
        webhookAllowInsecureTargets: true,
      },
    });
    resellerId = (await h.module.services.resellers.byEmail('reseller@example.com')).id;
  });
  afterAll(async () => {
    await h.close();
    await smtp.close();
  });

  const mailsTo = (to: string, subject: RegExp) => smtp.mails.filter((m) => m.to.includes(to) && subject.test(m.raw));

  it('mails the reseller when its credit falls below its threshold, once per fall', async () => {
    const { resellers, credit } = h.module.services;
    const balance = await credit.balance(resellerId);
    await resellers.setLowCreditThreshold(resellerId, balance - 100);
    await credit.adjust(resellerId, -200, null);
    const [mail] = await eventually(
      () =>
        mailsTo('reseller@example.com', /Subject: Your credit is running low/).length === 1 &&
        mailsTo('reseller@example.com', /Subject: Your credit is running low/),
      'the low-credit mail',
    );
    expect(mail!.raw).toMatch(/From: Reseller platform <platform@example\.com>/);
    expect(mail!.raw).toContain(`Your prepaid credit is ${((balance - 200) / 100).toFixed(2)} USD`);
    expect(mail!.raw).toMatch(/Content-Type: text\/html/);
    await credit.adjust(resellerId, -10, null);
    await h.module.container.get(TOKENS.outboxDispatcher).drain();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(mailsTo('reseller@example.com', /Subject: Your credit is running low/)).toHaveLength(1);
    await resellers.setLowCreditThreshold(resellerId, null);
  });

  it('publishes domain.expiring 30, 7 and 1 days before the expiry date, once each, and the daily digest once a day', async () => {
    const expiring: AnyPlatformEvent[] = [];
    h.module.on('domain.expiring', (_data, event) => void expiring.push(event as AnyPlatformEvent));
    const in10Days = new Date(h.clock.now().getTime() + 10 * 86_400_000).toISOString().slice(0, 10);
    await givenDomain(h.module, 'soon-expiring.com', { atRegistrar: false, expiryDate: in10Days });
    await givenDomain(h.module, 'far-expiring.com', { atRegistrar: false, expiryDate: '2030-01-01' });
    const notices = h.module.container.get(TOKENS.domainExpiryNotices);
    const dispatcher = h.module.container.get(TOKENS.outboxDispatcher);
    const run = async () => {
      const counts = await notices.publishDue();
      await dispatcher.drain();
      return counts;
    };
    expect(await run()).toEqual({ published: 1 });
    expect(await run()).toEqual({ published: 0 });
    h.clock.advance(4 * 86_400_000);
    expect(await run()).toEqual({ published: 1 });
    h.clock.advance(5 * 86_400_000);
    expect(await run()).toEqual({ published: 1 });
    expect(await run()).toEqual({ published: 0 });
    expect(expiring.map((e) => e.data)).toEqual(
      [30, 7, 1].map((daysLeft) =>
        expect.objectContaining({ domain: 'soon-expiring.com', expiryDate: in10Days, daysLeft }),
      ),
    );
    expect(new Set(expiring.map((e) => e.id)).size).toBe(3);

    const notifications = h.module.container.get(TOKENS.notifications);
    expect(await notifications.dailyDigest()).toEqual({ sent: 1 });
    expect(await notifications.dailyDigest()).toEqual({ sent: 0 });
    const [digest] = mailsTo('reseller@example.com', /Subject: 1 domain expires within 30 days/);
    expect(digest!.raw).toContain(`soon-expiring.com: ${in10Days}`);
    expect(digest!.raw).not.toContain('far-expiring.com');
  });

  it('sends a digest the mail server refused at the next run that day, and only once', async () => {
    await h.module.services.resellers.create('digest-retry@example.com', 'default', 0);
    const in20Days = new Date(h.clock.now().getTime() + 20 * 86_400_000).toISOString().slice(0, 10);
    await givenDomain(h.module, 'digest-retry.com', {
      owner: 'digest-retry@example.com',
      atRegistrar: false,
      expiryDate: in20Days,
    });
    const notifications = h.module.container.get(TOKENS.notifications);
    h.clock.advance(86_400_000); // a day no digest was sent yet
    smtp.refuse.next = 1;
    const first = await notifications.dailyDigest();
    expect(first).toMatchObject({ failed: 1 });
    expect(mailsTo('digest-retry@example.com', /Subject: 1 domain expires/)).toHaveLength(0);
    h.clock.advance(3_600_000);
    const second = await notifications.dailyDigest();
    expect(second.failed).toBeUndefined();
    expect(mailsTo('digest-retry@example.com', /Subject: 1 domain expires/)).toHaveLength(1);
    h.clock.advance(3_600_000);
    await notifications.dailyDigest();
    expect(mailsTo('digest-retry@example.com', /Subject: 1 domain expires/)).toHaveLength(1);
    const [row] = await h.module
      .knex('expiry_digests')
      .whereIn('reseller_id', h.module.knex('resellers').select('id').where({ email: 'digest-retry@example.com' }));
    expect(row).toMatchObject({ status: 'sent', attempts: 2, last_error: null });
  });

  it("mails an endpoint's owner when the endpoint is disabled", async () => {
    const gone = http.createServer((_req, res) => res.writeHead(410).end());
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/hook`;
      await h.module.services.webhooks.add({ resellerId }, url);
      h.module.container.get(TOKENS.webhookDeliveryWorker).start();
      await h.module.services.credit.adjust(resellerId, 100, null);
      const [mail] = await eventually(
        () =>
          mailsTo('reseller@example.com', /Subject: A webhook endpoint was disabled/).length > 0 &&
          mailsTo('reseller@example.com', /Subject: A webhook endpoint was disabled/),
        'the mail',
      );
      expect(mail!.raw).toContain('410 Gone');
    } finally {
      await h.module.container.get(TOKENS.webhookDeliveryWorker).stop();
      gone.closeAllConnections();
      await new Promise<void>((resolve) => gone.close(() => resolve()));
    }
  });
});

describe('without SMTP_URL', () => {
  it('sends no mail', async () => {
    const h = await startHarness();
    try {
      expect(h.module.container.get(TOKENS.mailer)).toBe(NO_MAIL);
      expect(await h.module.container.get(TOKENS.notifications).dailyDigest()).toEqual({ sent: 0 });
    } finally {
      await h.close();
    }
  });
});
