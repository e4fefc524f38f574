/**
 * The registrar conformance kit: what a plugin author runs against their plugin before shipping
 * it. It loads the plugin folder through the platform's own loader (manifest, entry, options,
 * capabilities), then calls every method of every capability the plugin offers through the same
 * guarded registrar the platform uses in production (src/core/registrar/guarded-registrar.ts:
 * deadline, answer schemas), strictly: a malformed element of a list answer fails the check
 * where production would drop it. It uses no test framework:
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
import { guardRegistrar, isRegistrarFault } from '../core/registrar/guarded-registrar';
import { CAPABILITY_METHODS, type CapabilityName, type PluginHost, type RegisterInput } from '../core/registrar/plugin';
import { cleanMessage } from '../core/registrar/registrar-answers';
import { systemClock } from '../core/common/clock';
import type { Logger } from '../core/common/logger';
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

/** A one-year registration of `domain` with the sample contact, as the kit sends it. */
const registration = (domain: string): RegisterInput => ({
  domain,
  period: 1,
  nameservers: ['ns1.example.net', 'ns2.example.net'],
  contacts: { registrant: SAMPLE_CONTACT },
  addons: {},
  fields: {},
});

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
  const plugin = guardRegistrar(loaded, { timeoutMs, logger: silentLogger, strict: true });
  const has = (c: CapabilityName) => loaded.capabilities.includes(c);
  const exercised = new Set<string>();

  /** One call through the guarded registrar: under the deadline, its answer checked against the production schema. */
  async function check<T>(
    area: ConformanceArea,
    method: string,
    shape: string,
    call: () => Promise<T>,
    expect?: (answer: T) => string | undefined,
  ): Promise<T | undefined> {
    exercised.add(method);
    const name = `${method} answers ${shape}`;
    let answer: T;
    try {
      answer = await call();
    } catch (error) {
      const problem =
        isRegistrarFault(error) && error.kind === 'malformed'
          ? `the answer does not have the documented shape (${error.detail}); got ${error.received}`
          : `threw instead of answering: ${isRegistrarFault(error) ? error.detail : messageOf(error)}`;
      checks.push({ area, name, passed: false, problem });
      return undefined;
    }
    const problem = expect?.(answer);
    const refusal = isRefusal(answer) ? `answered ok: false (${answer.reason}): ${answer.message}` : undefined;
    checks.push({
      area,
      name,
      passed: problem === undefined,
      ...(problem ? { problem } : {}),
      ...(refusal && !problem ? { note: refusal } : {}),
    });
    return answer;
  }
  const ref = { domain };

  // ---- the required part ----
  await check(
    'required',
    'checkAvailability',
    'a list of { domain, status }',
    () => plugin.checkAvailability([domain]),
    (list) => (list.some((a) => a.domain === domain) ? undefined : `it did not answer for ${domain}`),
  );
  const registered = await check(
    'required',
    'register',
    '{ ok, expiryDate }',
    () => plugin.register(registration(domain)),
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
    () => plugin.renew({ domain, period: 1, currentExpiryDate: firstExpiry }),
    (o) =>
      !o.ok
        ? `the renewal of ${domain} was refused (${o.reason}: ${o.message})`
        : firstExpiry && o.expiryDate <= firstExpiry
          ? `renewing did not move the expiry date past ${firstExpiry}`
          : undefined,
  );

  // ---- every capability the plugin offers, reads before writes, destructive ones last ----
  if (has('domainInformation'))
    await check('domainInformation', 'domainInformation.get', '{ ok, nameservers, … }', () =>
      plugin.domainInformation!.get(ref),
    );
  if (has('nameservers')) {
    await check('nameservers', 'nameservers.get', '{ ok, nameservers }', () => plugin.nameservers!.get(ref));
    await check('nameservers', 'nameservers.save', '{ ok }', () =>
      plugin.nameservers!.save({ domain, nameservers: ['ns3.example.net', 'ns4.example.net'] }),
    );
  }
  if (has('childHosts')) {
    const childHost = `ns1.${domain}`;
    await check('childHosts', 'childHosts.register', '{ ok }', () =>
      plugin.childHosts!.register({ domain, host: childHost, ipAddress: '192.0.2.1' }),
    );
    await check('childHosts', 'childHosts.modify', '{ ok }', () =>
      plugin.childHosts!.modify({ domain, host: childHost, currentIpAddress: '192.0.2.1', newIpAddress: '192.0.2.2' }),
    );
    await check('childHosts', 'childHosts.delete', '{ ok }', () =>
      plugin.childHosts!.delete({ domain, host: childHost }),
    );
  }
  if (has('dnsRecords')) {
    await check('dnsRecords', 'dnsRecords.get', '{ ok, records }', () => plugin.dnsRecords!.get(ref));
    await check('dnsRecords', 'dnsRecords.save', '{ ok }', () =>
      plugin.dnsRecords!.save({
        domain,
        records: [
          { hostname: '@', type: 'A', address: '192.0.2.10' },
          { hostname: '@', type: 'MX', address: 'mail.example.net', priority: '10' },
        ],
      }),
    );
  }
  if (has('registrarLock')) {
    await check('registrarLock', 'registrarLock.get', '{ ok, locked }', () => plugin.registrarLock!.get(ref));
    await check('registrarLock', 'registrarLock.save', '{ ok }', () =>
      plugin.registrarLock!.save({ domain, locked: true }),
    );
  }
  if (has('idProtection'))
    await check('idProtection', 'idProtection.save', '{ ok }', () =>
      plugin.idProtection!.save({ domain, enabled: true }),
    );
  if (has('eppCode')) await check('eppCode', 'eppCode.get', '{ ok, eppCode }', () => plugin.eppCode!.get(ref));
  if (has('contacts')) {
    await check('contacts', 'contacts.get', '{ ok, contacts }', () => plugin.contacts!.get(ref));
    await check('contacts', 'contacts.save', '{ ok }', () =>
      plugin.contacts!.save({ domain, contacts: { registrant: SAMPLE_CONTACT, admin: SAMPLE_CONTACT } }),
    );
  }
  if (has('emailForwarding')) {
    await check('emailForwarding', 'emailForwarding.get', '{ ok, forwards }', () => plugin.emailForwarding!.get(ref));
    await check('emailForwarding', 'emailForwarding.save', '{ ok }', () =>
      plugin.emailForwarding!.save({ domain, forwards: [{ prefix: 'info', forwardTo: 'hostmaster@example.net' }] }),
    );
  }
  if (has('domainSync'))
    await check('domainSync', 'domainSync.sync', '{ ok, active, expired, transferredAway }', () =>
      plugin.domainSync!.sync(ref),
    );
  if (has('transferSync'))
    await check('transferSync', 'transferSync.sync', '{ ok, completed, failed }', () => plugin.transferSync!.sync(ref));
  if (has('suggestions')) {
    await check(
      'suggestions',
      'suggestions.suggest',
      'a list of { domain, score }',
      () => plugin.suggestions!.suggest({ term: 'conformance', tlds: [tld], limit: 5 }),
      (list) => (list.length > 5 ? `it answered ${list.length} suggestions when asked for at most 5` : undefined),
    );
  }
  if (has('tldPricing'))
    await check('tldPricing', 'tldPricing.prices', 'a list of { tld, period, register, renew, transfer }', () =>
      plugin.tldPricing!.prices(),
    );
  if (has('domainPricing'))
    for (const action of ['renew', 'transfer'] as const)
      await check('domainPricing', 'domainPricing.price', `{ ok, isPremium, cost? } for a ${action}`, () =>
        plugin.domainPricing!.price({ domain, action, period: 2 }),
      );
  if (has('transfer')) {
    const incoming = options.transferDomain ?? `conformance-transfer-${token()}${tld}`;
    await check('transfer', 'transfer.transfer', '{ ok, expiryDate? }', () =>
      plugin.transfer!.transfer({ ...registration(incoming), eppCode: options.eppCode ?? 'CONFORMANCE-EPP' }),
    );
  }
  if (has('release')) {
    const released = `conformance-release-${token()}${tld}`;
    await plugin.register(registration(released)).catch(() => undefined);
    await check('release', 'release.release', '{ ok }', () =>
      plugin.release!.release({ domain: released, transferTag: 'CONFORMANCE' }),
    );
  }
  if (has('delete')) await check('delete', 'delete.delete', '{ ok }', () => plugin.delete!.delete(ref));

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
  await loaded.plugin?.close?.().catch(() => undefined);
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

function folderName(folder: string): string {
  return (
    folder
      .replace(/[\\/]+$/, '')
      .split(/[\\/]/)
      .pop() ?? folder
  );
}
