/**
 * The registrar conformance kit: what a plugin author runs against their plugin before shipping
 * it. It loads the plugin folder through the platform's own loader (manifest, entry, options,
 * capabilities), then calls every method of every capability the plugin offers and checks each
 * answer against the schemas the platform applies in production. It uses no test framework:
 *
 * ```ts
 * const report = await runConformanceKit({ folder: __dirname, options: { apiUrl: 'https://ote.example' } });
 * expect(report.failures).toEqual([]);   // or: if (!report.passed) throw new Error(formatConformanceReport(report));
 * ```
 *
 * A well-formed refusal (`{ ok: false, reason, message }`) passes a capability's shape check and
 * is noted in the report: a live registry may have reasons of its own. The required part is
 * stricter: the test name must register and renew.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { withDeadline } from '../core/registrar/deadline';
import { CAPABILITY_METHODS, type CallContext, type CapabilityName, type PluginHost } from '../core/registrar/plugin';
import {
  AvailabilityList,
  ContactsAnswer,
  DnsRecords,
  Done,
  DomainSync,
  EmailForwards,
  EppCode,
  Information,
  Lock,
  Nameservers,
  Registered,
  SuggestionList,
  TldPriceList,
  TransferStarted,
  TransferSync,
  cleanMessage,
} from '../core/registrar/registrar-answers';
import { systemClock } from '../core/shared/clock';
import type { Logger } from '../core/shared/logger';
import { loadPluginFolder, type LoadedPlugin } from '../infra/plugins/plugin-loader';
import { MemoryPluginStore } from './memory-plugin-store';

export interface ConformanceOptions {
  /** The plugin's folder, holding its package.json manifest. */
  readonly folder: string;
  /** The plugin's options, as an operator would configure them (a test or OT&E account). */
  readonly options?: Record<string, unknown>;
  /** A name the registrar can register during the run. Default: a random `conformance-…` name under `tld`. */
  readonly domain?: string;
  /** Default `.com`. */
  readonly tld?: string;
  /** A name registered elsewhere, for the transfer check. Default: a random name under `tld`. */
  readonly transferDomain?: string;
  /** The EPP code sent with the transfer check. */
  readonly eppCode?: string;
  /** The deadline of each call, like REGISTRAR_TIMEOUT_MS. Default 30000. */
  readonly timeoutMs?: number;
  /** Host services for the plugin. Default: an in-memory store, a silent logger and the system clock. */
  readonly host?: Partial<PluginHost>;
}

export type ConformanceArea = 'loader' | 'required' | CapabilityName;

export interface ConformanceCheck {
  readonly area: ConformanceArea;
  /** Like "nameservers.get answers { ok, nameservers }". */
  readonly name: string;
  readonly passed: boolean;
  /** Why it failed. */
  readonly problem?: string;
  /** Something worth knowing that is not a failure, like a well-formed refusal. */
  readonly note?: string;
}

export interface ConformanceReport {
  readonly plugin: string;
  /** The capabilities exercised: those the manifest declares, minus any switched off by `disabledCapabilities`. */
  readonly capabilities: readonly CapabilityName[];
  readonly checks: readonly ConformanceCheck[];
  readonly failures: readonly ConformanceCheck[];
  readonly passed: boolean;
}

const silentLogger: Logger = { info() {}, warn() {}, error() {}, debug() {}, child: () => silentLogger };

const SAMPLE_CONTACT = {
  firstname: 'Conformance',
  lastname: 'Kit',
  email: 'hostmaster@example.net',
  address1: '1 Test Street',
  city: 'Testville',
  postcode: '12345',
  country: 'US',
  phonenumber: '+1.5555550100',
};

/** Runs the kit; never throws for a plugin's faults, which are reported as failed checks. */
export async function runConformanceKit(options: ConformanceOptions): Promise<ConformanceReport> {
  const checks: ConformanceCheck[] = [];
  const timeoutMs = options.timeoutMs ?? 30_000;
  const tld = options.tld ?? '.com';
  const token = () => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const domain = options.domain ?? `conformance-${token()}${tld}`;
  const host: PluginHost = {
    logger: silentLogger,
    clock: systemClock,
    store: new MemoryPluginStore(),
    ...options.host,
  };

  let loaded: LoadedPlugin;
  try {
    loaded = await loadPluginFolder(options.folder, options.options ?? {}, () => host);
    checks.push({
      area: 'loader',
      name: 'loads through the platform loader (manifest, entry, options, capabilities)',
      passed: true,
    });
  } catch (error) {
    checks.push({
      area: 'loader',
      name: 'loads through the platform loader (manifest, entry, options, capabilities)',
      passed: false,
      problem: messageOf(error),
    });
    return report(folderName(options.folder), [], checks);
  }
  const plugin = loaded.plugin;
  const has = (c: CapabilityName) => loaded.capabilities.includes(c);
  const exercised = new Set<string>();

  /** One call under the deadline, its answer checked against the production schema. */
  async function check<S extends z.ZodType>(
    area: ConformanceArea,
    method: string,
    shape: string,
    schema: S,
    invoke: (ctx: CallContext) => Promise<unknown>,
    expect?: (answer: z.infer<S>) => string | undefined,
  ): Promise<z.infer<S> | undefined> {
    exercised.add(method);
    const name = `${method} answers ${shape}`;
    let answer: unknown;
    try {
      answer = await withDeadline(plugin.id, timeoutMs, invoke);
    } catch (error) {
      checks.push({ area, name, passed: false, problem: `threw instead of answering: ${messageOf(error)}` });
      return undefined;
    }
    const parsed = schema.safeParse(answer);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`)
        .join('; ');
      checks.push({
        area,
        name,
        passed: false,
        problem: `the answer does not have the documented shape (${issues}); got ${preview(answer)}`,
      });
      return undefined;
    }
    const problem = expect?.(parsed.data);
    const refusal = isRefusal(parsed.data)
      ? `answered ok: false (${parsed.data.reason}): ${parsed.data.message}`
      : undefined;
    checks.push({
      area,
      name,
      passed: problem === undefined,
      ...(problem ? { problem } : {}),
      ...(refusal && !problem ? { note: refusal } : {}),
    });
    return parsed.data;
  }
  const ref = { domain };

  // ---- the required part ----
  await check(
    'required',
    'checkAvailability',
    'a list of { domain, status }',
    AvailabilityList,
    (ctx) => plugin.checkAvailability([domain], ctx),
    (list) => (list.some((a) => a.domain === domain) ? undefined : `it did not answer for ${domain}`),
  );
  const registered = await check(
    'required',
    'register',
    '{ ok, expiryDate }',
    Registered,
    (ctx) =>
      plugin.register(
        {
          domain,
          period: 1,
          nameservers: ['ns1.example.net', 'ns2.example.net'],
          contacts: { registrant: SAMPLE_CONTACT },
          addons: {},
          fields: {},
        },
        ctx,
      ),
    (o) =>
      o.ok
        ? undefined
        : `the test registration of ${domain} was refused (${o.reason}: ${o.message}); pass a \`domain\` this registrar can register`,
  );
  const firstExpiry = registered?.ok ? registered.expiryDate : null;
  await check(
    'required',
    'renew',
    '{ ok, expiryDate }',
    Registered,
    (ctx) => plugin.renew({ domain, period: 1, currentExpiryDate: firstExpiry }, ctx),
    (o) =>
      !o.ok
        ? `the renewal of ${domain} was refused (${o.reason}: ${o.message})`
        : firstExpiry && o.expiryDate <= firstExpiry
          ? `renewing did not move the expiry date past ${firstExpiry}`
          : undefined,
  );

  // ---- every capability the plugin offers, reads before writes, destructive ones last ----
  if (has('domainInformation'))
    await check('domainInformation', 'domainInformation.get', '{ ok, nameservers, … }', Information, (ctx) =>
      plugin.domainInformation!.get(ref, ctx),
    );
  if (has('nameservers')) {
    await check('nameservers', 'nameservers.get', '{ ok, nameservers }', Nameservers, (ctx) =>
      plugin.nameservers!.get(ref, ctx),
    );
    await check('nameservers', 'nameservers.save', '{ ok }', Done, (ctx) =>
      plugin.nameservers!.save({ domain, nameservers: ['ns3.example.net', 'ns4.example.net'] }, ctx),
    );
  }
  if (has('childHosts')) {
    const childHost = `ns1.${domain}`;
    await check('childHosts', 'childHosts.register', '{ ok }', Done, (ctx) =>
      plugin.childHosts!.register({ domain, host: childHost, ipAddress: '192.0.2.1' }, ctx),
    );
    await check('childHosts', 'childHosts.modify', '{ ok }', Done, (ctx) =>
      plugin.childHosts!.modify(
        { domain, host: childHost, currentIpAddress: '192.0.2.1', newIpAddress: '192.0.2.2' },
        ctx,
      ),
    );
    await check('childHosts', 'childHosts.delete', '{ ok }', Done, (ctx) =>
      plugin.childHosts!.delete({ domain, host: childHost }, ctx),
    );
  }
  if (has('dnsRecords')) {
    await check('dnsRecords', 'dnsRecords.get', '{ ok, records }', DnsRecords, (ctx) =>
      plugin.dnsRecords!.get(ref, ctx),
    );
    await check('dnsRecords', 'dnsRecords.save', '{ ok }', Done, (ctx) =>
      plugin.dnsRecords!.save(
        {
          domain,
          records: [
            { hostname: '@', type: 'A', address: '192.0.2.10' },
            { hostname: '@', type: 'MX', address: 'mail.example.net', priority: '10' },
          ],
        },
        ctx,
      ),
    );
  }
  if (has('registrarLock')) {
    await check('registrarLock', 'registrarLock.get', '{ ok, locked }', Lock, (ctx) =>
      plugin.registrarLock!.get(ref, ctx),
    );
    await check('registrarLock', 'registrarLock.save', '{ ok }', Done, (ctx) =>
      plugin.registrarLock!.save({ domain, locked: true }, ctx),
    );
  }
  if (has('idProtection'))
    await check('idProtection', 'idProtection.save', '{ ok }', Done, (ctx) =>
      plugin.idProtection!.save({ domain, enabled: true }, ctx),
    );
  if (has('eppCode'))
    await check('eppCode', 'eppCode.get', '{ ok, eppCode }', EppCode, (ctx) => plugin.eppCode!.get(ref, ctx));
  if (has('contacts')) {
    await check('contacts', 'contacts.get', '{ ok, contacts }', ContactsAnswer, (ctx) =>
      plugin.contacts!.get(ref, ctx),
    );
    await check('contacts', 'contacts.save', '{ ok }', Done, (ctx) =>
      plugin.contacts!.save({ domain, contacts: { registrant: SAMPLE_CONTACT, admin: SAMPLE_CONTACT } }, ctx),
    );
  }
  if (has('emailForwarding')) {
    await check('emailForwarding', 'emailForwarding.get', '{ ok, forwards }', EmailForwards, (ctx) =>
      plugin.emailForwarding!.get(ref, ctx),
    );
    await check('emailForwarding', 'emailForwarding.save', '{ ok }', Done, (ctx) =>
      plugin.emailForwarding!.save(
        { domain, forwards: [{ prefix: 'info', forwardTo: 'hostmaster@example.net' }] },
        ctx,
      ),
    );
  }
  if (has('domainSync'))
    await check('domainSync', 'domainSync.sync', '{ ok, active, expired, transferredAway }', DomainSync, (ctx) =>
      plugin.domainSync!.sync(ref, ctx),
    );
  if (has('transferSync'))
    await check('transferSync', 'transferSync.sync', '{ ok, completed, failed }', TransferSync, (ctx) =>
      plugin.transferSync!.sync(ref, ctx),
    );
  if (has('suggestions')) {
    await check(
      'suggestions',
      'suggestions.suggest',
      'a list of { domain, score }',
      SuggestionList,
      (ctx) => plugin.suggestions!.suggest({ term: 'conformance', tlds: [tld], limit: 5 }, ctx),
      (list) => (list.length > 5 ? `it answered ${list.length} suggestions when asked for at most 5` : undefined),
    );
  }
  if (has('tldPricing'))
    await check(
      'tldPricing',
      'tldPricing.prices',
      'a list of { tld, period, register, renew, transfer }',
      TldPriceList,
      (ctx) => plugin.tldPricing!.prices(ctx),
    );
  if (has('transfer')) {
    const incoming = options.transferDomain ?? `conformance-transfer-${token()}${tld}`;
    await check('transfer', 'transfer.transfer', '{ ok, expiryDate? }', TransferStarted, (ctx) =>
      plugin.transfer!.transfer(
        {
          domain: incoming,
          period: 1,
          nameservers: ['ns1.example.net', 'ns2.example.net'],
          contacts: { registrant: SAMPLE_CONTACT },
          addons: {},
          fields: {},
          eppCode: options.eppCode ?? 'CONFORMANCE-EPP',
        },
        ctx,
      ),
    );
  }
  if (has('release')) {
    const released = `conformance-release-${token()}${tld}`;
    await withDeadline(plugin.id, timeoutMs, (ctx) =>
      plugin.register(
        {
          domain: released,
          period: 1,
          nameservers: ['ns1.example.net', 'ns2.example.net'],
          contacts: { registrant: SAMPLE_CONTACT },
          addons: {},
          fields: {},
        },
        ctx,
      ),
    ).catch(() => undefined);
    await check('release', 'release.release', '{ ok }', Done, (ctx) =>
      plugin.release!.release({ domain: released, transferTag: 'CONFORMANCE' }, ctx),
    );
  }
  if (has('delete')) await check('delete', 'delete.delete', '{ ok }', Done, (ctx) => plugin.delete!.delete(ref, ctx));

  const expected = [
    'checkAvailability',
    'register',
    'renew',
    ...loaded.capabilities.flatMap((c) => (CAPABILITY_METHODS[c] as readonly string[]).map((m) => `${c}.${m}`)),
  ];
  const missed = expected.filter((m) => !exercised.has(m));
  checks.push({
    area: 'loader',
    name: 'every method of every capability in use was exercised',
    passed: missed.length === 0,
    ...(missed.length ? { problem: `not exercised: ${missed.join(', ')}` } : {}),
  });
  await plugin.close?.().catch(() => undefined);
  return report(plugin.id, loaded.capabilities, checks);
}

/** The report as lines a person reads: one per check, failures first. */
export function formatConformanceReport(report: ConformanceReport): string {
  const line = (c: ConformanceCheck) =>
    `${c.passed ? 'ok  ' : 'FAIL'} ${c.name}${c.problem ? `: ${c.problem}` : ''}${c.note ? ` (${c.note})` : ''}`;
  const header = `${report.plugin}: ${report.passed ? 'conforms' : `${report.failures.length} of ${report.checks.length} checks failed`} (capabilities: ${report.capabilities.join(', ') || 'none'})`;
  return [header, ...report.failures.map(line), ...report.checks.filter((c) => c.passed).map(line)].join('\n');
}

function report(
  plugin: string,
  capabilities: readonly CapabilityName[],
  checks: ConformanceCheck[],
): ConformanceReport {
  const failures = checks.filter((c) => !c.passed);
  return { plugin, capabilities, checks, failures, passed: failures.length === 0 };
}

function isRefusal(answer: unknown): answer is { ok: false; reason: string; message: string } {
  return typeof answer === 'object' && answer !== null && (answer as { ok?: unknown }).ok === false;
}

function messageOf(error: unknown): string {
  return cleanMessage(error instanceof Error ? error.message : error);
}

function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function folderName(folder: string): string {
  return (
    folder
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() ?? folder
  );
}
