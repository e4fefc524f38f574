import type { BrowserContext, Page } from 'playwright-core';
import { screenshot, scriptRan, XSS_PAYLOADS } from '../support/browser';
import { givenDomain } from '../support/domains';
import { CONSOLE, openConsole, startWebHarness, type WebHarness } from '../support/web';

/** Hostile text in a reseller's email and in a DNS record, rendered by the console in a real browser. */
describe('console: hostile text in a reseller email and a DNS record runs nothing', () => {
  let h: WebHarness;
  let context: BrowserContext;
  let page: Page;
  const [script, attribute] = XSS_PAYLOADS;

  beforeAll(async () => {
    h = await startWebHarness();
    ({ context, page } = await openConsole(h, { watchScripts: true }));
  });
  afterAll(async () => {
    await context.close();
    await h.close();
  });

  async function expectShownAsText(path: string, where: string, text: string) {
    await page.goto(`${CONSOLE}${path}`);
    expect([path, await page.textContent(where)]).toEqual([path, expect.stringContaining(text)]);
    expect([path, await scriptRan(page)]).toEqual([path, false]);
    expect([path, await page.$$eval('main img, main script', (found) => found.length)]).toEqual([path, 0]);
  }

  it("shows a reseller's email with markup in it as text on the lists and pages that name the reseller", async () => {
    // The API and the CLI refuse such an email; a row from an import or an older version may still hold one.
    const { reseller } = await h.module.services.resellers.create('plain@example.com', 'default');
    const hostile = `${script}${attribute}@example.com`;
    await h.module.knex('resellers').where({ id: reseller.id }).update({ email: hostile });
    await givenDomain(h.module, 'hostile-owner.com', { owner: 'reseller@example.com' });
    await h.module.knex('domains').where({ name: 'hostile-owner.com' }).update({ reseller_id: reseller.id });

    await expectShownAsText('/resellers', '#results', script);
    await expectShownAsText(`/resellers/${reseller.id}`, 'main h1', attribute);
    await expectShownAsText('/domains', '#domains', script);
    await expectShownAsText('/domains/hostile-owner.com', 'main', attribute);
    await screenshot(page, 'console-hostile-email');
  });

  it('shows DNS records read-only on the domain page, a hostile TXT record as text', async () => {
    await givenDomain(h.module, 'dns-xss.com');
    const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
    await h.module.services.domainManagement.saveDnsRecords(reseller.id, 'dns-xss.com', [
      { hostname: '@', type: 'TXT', address: script },
      { hostname: 'www', type: 'TXT', address: attribute },
      { hostname: '@', type: 'A', address: '192.0.2.10' },
    ]);
    await page.goto(`${CONSOLE}/domains/dns-xss.com`);
    await Promise.all([page.waitForEvent('load'), page.click('#dns-link')]);
    expect(page.url()).toBe(`${h.baseUrl}${CONSOLE}/domains/dns-xss.com/dns`);
    const rows = await page.$$eval('#dns-records tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    expect(rows).toEqual(
      expect.arrayContaining([
        ['@', 'TXT', script, ''],
        ['www', 'TXT', attribute, ''],
        ['@', 'A', '192.0.2.10', ''],
      ]),
    );
    expect(await scriptRan(page)).toBe(false);
    expect(await page.$$eval('main img, main script', (found) => found.length)).toBe(0);
    // Read-only: no form on the page changes a record.
    expect(await page.$$eval('main form', (forms) => forms.length)).toBe(0);
    await screenshot(page, 'console-domain-dns');
  });
});
