import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { Secret, TOTP } from 'otpauth';
import type { OperatorRole } from '../../src/core/operator/operator';
import type { Actor } from '../../src/core/audit/audit-log';
import { type Harness, type HarnessOptions, startHarness } from './harness';
import { launchBrowser, newContext, watchForInjectedScript } from './browser';

/** Where the test server mounts the console. */
export const CONSOLE = '/admin';
export const TEST_ACTOR: Actor = { kind: 'cli', id: null, label: 'cli:test' };

export interface WebHarness extends Harness {
  /** http://127.0.0.1:<port> */
  readonly baseUrl: string;
  readonly browser: Browser;
  /** A fresh browser context (its own cookies) on the test server. */
  newContext(): Promise<BrowserContext>;
}

/**
 * The module on a fresh database with the console under /admin (and, once it exists, the portal),
 * the API beside them, and a Chromium to open them with. Console and portal tests start here.
 */
export async function startWebHarness(options: HarnessOptions = {}): Promise<WebHarness> {
  const harness = await startHarness({
    ...options,
    before: (module) => [module.console({ mountPath: CONSOLE }), ...(options.before?.(module) ?? [])],
  });
  if (!harness.server.listening) await new Promise((resolve) => harness.server.once('listening', resolve));
  const address = harness.server.address();
  const baseUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  let browser: Browser;
  try {
    browser = await launchBrowser();
  } catch (error) {
    await harness.close();
    throw error;
  }
  return {
    ...harness,
    baseUrl,
    browser,
    newContext: async () => {
      const context = await newContext(browser, baseUrl);
      // A step that does not happen fails the test with the step's name, well before jest's own timeout.
      context.setDefaultTimeout(10_000);
      return context;
    },
    async close() {
      await browser.close();
      await harness.close();
    },
  };
}

export interface TestOperator {
  readonly email: string;
  readonly password: string;
  readonly role: OperatorRole;
  /** The TOTP secret (base32) when the operator has a second factor. */
  readonly totpSecret?: string;
  readonly recoveryCodes?: readonly string[];
}

/** An operator with a password (and a second factor unless `withTotp` is false), made through the same service as the CLI. */
export async function createOperator(
  h: Harness,
  email: string,
  role: OperatorRole,
  { withTotp = true, password = 'correct horse battery staple' } = {},
): Promise<TestOperator> {
  const operators = h.module.services.operators;
  const { token, operator } = await operators.create(TEST_ACTOR, email, role);
  await operators.setPassword(token, password, password);
  if (!withTotp) return { email, password, role };
  const { sealed, secret } = operators.newSecondFactor(operator);
  const recoveryCodes = await operators.enrol(operator.id, sealed, totpCode(secret, h.clock.now()));
  return { email, password, role, totpSecret: secret, recoveryCodes };
}

/**
 * The code of the next 30-second step: the module's clock is fixed in tests, and a code works once,
 * so each sign-in waits for a fresh one as a person does.
 */
export function nextTotpCode(h: Harness, secret: string): string {
  h.clock.advance(30_000);
  return totpCode(secret, h.clock.now());
}

/** The TOTP code of a secret at a time (the module's clock is fixed in tests). */
export function totpCode(secret: string, at: Date): string {
  return new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 }).generate({
    timestamp: at.getTime(),
  });
}

/** Signs in through the pages, as a person would: email, password, then the code when asked. */
export async function signInToConsole(page: Page, h: Harness, operator: TestOperator): Promise<void> {
  await page.goto(`${CONSOLE}/sign-in`);
  await page.fill('#email', operator.email);
  await page.fill('#password', operator.password);
  await submit(page, 'form[action$="/sign-in"] button[type=submit]');
  if (operator.totpSecret && page.url().includes('/sign-in/code')) {
    await page.fill('#code', nextTotpCode(h, operator.totpSecret));
    await submit(page, 'form[action$="/sign-in/code"] button[type=submit]');
  }
}

/** An admin signed in to the console in a browser context of its own (`close` it before the harness). */
export interface ConsoleSession {
  readonly admin: TestOperator;
  readonly context: BrowserContext;
  readonly page: Page;
}

/**
 * The console as most page tests begin: an admin (admin@example.com, with a second factor),
 * a new browser context and page, signed in. `watchScripts`: the context reports any injected
 * script that runs (test/support/browser.ts), for the hostile-text tests.
 */
export async function openConsole(h: WebHarness, { watchScripts = false } = {}): Promise<ConsoleSession> {
  const admin = await createOperator(h, 'admin@example.com', 'admin');
  const context = await h.newContext();
  if (watchScripts) await watchForInjectedScript(context);
  const page = await context.newPage();
  await signInToConsole(page, h, admin);
  return { admin, context, page };
}

/** Clicks a submit button and waits for the page the form leads to (after any redirect). */
export async function submit(page: Page, selector: string): Promise<void> {
  await Promise.all([page.waitForEvent('load'), page.click(selector)]);
}

/** The CSRF token a page's forms carry. */
export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match) throw new Error('the page has no form with a CSRF token');
  return match[1]!;
}

/**
 * Signs in over HTTP with a cookie-keeping supertest agent (for the attack and route-by-route
 * tests, which need status codes rather than a browser). Returns the agent and the session's CSRF token.
 */
export async function signInOverHttp(
  h: Harness,
  operator: TestOperator,
): Promise<{ agent: ReturnType<typeof request.agent>; csrf: string }> {
  const agent = request.agent(h.server);
  const form = await agent.get(`${CONSOLE}/sign-in`);
  const signedIn = await agent
    .post(`${CONSOLE}/sign-in`)
    .type('form')
    .send({ _csrf: csrfOf(form.text), email: operator.email, password: operator.password });
  if (signedIn.status !== 303) throw new Error(`sign-in answered ${signedIn.status}`);
  if (signedIn.headers.location === `${CONSOLE}/sign-in/code`) {
    const step = await agent.get(`${CONSOLE}/sign-in/code`);
    const coded = await agent
      .post(`${CONSOLE}/sign-in/code`)
      .type('form')
      .send({ _csrf: csrfOf(step.text), code: nextTotpCode(h, operator.totpSecret!) });
    if (coded.status !== 303) throw new Error(`the code step answered ${coded.status}`);
  }
  const home = await agent.get(`${CONSOLE}/`);
  return { agent, csrf: csrfOf(home.text) };
}
