import type { BrowserContext, Page } from 'playwright-core';
import { screenshot } from '../support/browser';
import { CONSOLE, openConsole, startWebHarness, submit, type WebHarness } from '../support/web';

const PORTAL = '/portal';

describe("console: inviting a reseller to the portal from the reseller's page", () => {
  let h: WebHarness;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    h = await startWebHarness({ before: (m) => [m.portal({ mountPath: PORTAL })] });
    ({ context, page } = await openConsole(h));
  });
  afterAll(async () => {
    await context.close();
    await h.close();
  });

  it('shows the one-time link once, audits it, and the link opens the portal invitation', async () => {
    const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
    await page.goto(`${CONSOLE}/resellers/${reseller.id}`);
    page.once('dialog', (dialog) => dialog.accept());
    await submit(page, '#invite');
    const link = (await page.textContent('#invitation-link'))!.trim();
    expect(link).toMatch(new RegExp(`^${h.baseUrl}${PORTAL}/invitation\\?token=[\\w-]{43}$`));
    expect(await page.textContent('.notice.warn')).toContain('shown only this once');
    await screenshot(page, 'console-portal-invitation');

    // Shown once: the reseller's page does not show it again.
    await page.goto(`${CONSOLE}/resellers/${reseller.id}`);
    expect(await page.content()).not.toContain(new URL(link).searchParams.get('token')!);

    const [entry] = await h.module.services.audit.find({ actionPrefix: 'reseller.portal.invite', limit: 1 });
    expect(entry).toMatchObject({
      actor: { kind: 'operator', label: 'admin@example.com' },
      subject: { kind: 'reseller', id: reseller.id },
    });
    expect(JSON.stringify(entry)).not.toContain(new URL(link).searchParams.get('token')!);

    const reseller2 = await h.newContext();
    try {
      const portal = await reseller2.newPage();
      await portal.goto(link);
      expect(await portal.textContent('main')).toContain(h.reseller.email);
    } finally {
      await reseller2.close();
    }
  });

  it('stops the earlier link when a new invitation is made', async () => {
    const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
    const invite = async () => {
      await page.goto(`${CONSOLE}/resellers/${reseller.id}`);
      page.once('dialog', (dialog) => dialog.accept());
      await submit(page, '#invite');
      return (await page.textContent('#invitation-link'))!.trim();
    };
    const first = await invite();
    const second = await invite();
    expect(second).not.toBe(first);
    const token = (link: string) => new URL(link).searchParams.get('token')!;
    expect(await h.module.services.portalLogins.invitationHolder(token(first))).toBeUndefined();
    expect(await h.module.services.portalLogins.invitationHolder(token(second))).toMatchObject({ id: reseller.id });
  });
});
