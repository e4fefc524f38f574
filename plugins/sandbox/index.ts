import { randomBytes } from 'node:crypto';
import { toASCII, toUnicode } from 'tr46';
import {
  defineRegistrarPlugin,
  type AvailabilityResult,
  type CallContext,
  type Contacts,
  type DnsRecord,
  type DomainInformation,
  type DomainSyncResult,
  type EmailForward,
  type PluginHost,
  type RegistrarOutcome,
  type RegistrarPlugin,
  type TldPriceOffer,
  type TransferSyncResult,
  MemoryPluginStore,
} from 'domain-reseller';

/** Registries' UTS-46 rules (nontransitional, STD3, hyphens, bidi, joiners, DNS lengths). */
const IDNA = {
  useSTD3ASCIIRules: true,
  checkHyphens: true,
  checkBidi: true,
  checkJoiners: true,
  verifyDNSLength: true,
  transitionalProcessing: false,
} as const;

/**
 * The simulated registrar for demos, development and tests. Its registry lives in the platform
 * database (the plugin store), so the server and `reseller-admin` see the same names and they
 * survive restarts (or, with `registry: 'memory'`, in the process alone). Test names, like a
 * payment provider's test cards, by the start of the SLD:
 *
 * - `taken-`   registered elsewhere: unavailable to register (it can be transferred in);
 * - `premium-` a premium name with a premium price (`PREMIUM_PRICE`), registrable; once registered,
 *   availability says only `registered` (as real registries do) and `domainPricing` tells its price;
 * - `fail-`    register, renew and transfer are refused with a registrar error;
 * - `slow-`    register, renew and transfer take effect but answer only after the registrar deadline;
 * - `lost-`    register, renew and transfer never take effect and never answer.
 *
 * Every other name behaves like a healthy registry. docs/plugins.md documents all of this.
 */

export interface SandboxOptions {
  /** Added to every call, honouring the deadline signal. */
  readonly latencyMs: number;
  /**
   * Where the registry lives: `database`, the plugin store (every process on the database sees the
   * same names, and they survive restarts), or `memory`, this process alone until it exits: for
   * load tests, where a registry's own writes would otherwise fall on the platform's database and
   * cores, as a real registrar's never do.
   */
  readonly registry: 'database' | 'memory';
}

/** Premium prices in minor units of the platform currency. */
export const PREMIUM_PRICE = { register: 50_000, renew: 50_000, transfer: 50_000 } as const;

/** TLD cost prices the sandbox offers through `tldPricing`, in minor units. */
const PRICE_LIST: Array<[tld: string, register: number, renew: number, transfer: number]> = [
  ['.com', 800, 900, 800],
  ['.net', 1000, 1100, 1000],
  ['.org', 900, 1000, 900],
  ['.io', 3000, 3500, 3000],
];

type RegistryStatus = 'active' | 'pendingTransfer' | 'transferredAway' | 'deleted';

interface RegistryEntry {
  status: RegistryStatus;
  /** YYYY-MM-DD. */
  expiryDate: string;
  nameservers: string[];
  locked: boolean;
  idProtection: boolean;
  dnsRecords: DnsRecord[];
  contacts: Contacts;
  forwards: EmailForward[];
  eppCode: string;
  hosts: Record<string, string[]>;
  nextRecordId: number;
}

function parseOptions(raw: Record<string, unknown>): SandboxOptions {
  const latency = raw.latencyMs ?? 0;
  const latencyMs = typeof latency === 'string' ? Number(latency) : latency;
  if (typeof latencyMs !== 'number' || !Number.isInteger(latencyMs) || latencyMs < 0 || latencyMs > 600_000) {
    throw new Error('latencyMs must be a whole number of milliseconds from 0 to 600000');
  }
  const registry = raw.registry ?? 'database';
  if (registry !== 'database' && registry !== 'memory') throw new Error('registry must be "database" or "memory"');
  return { latencyMs, registry };
}

const wait = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    if (ms === 0) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Resolves when the deadline fires: how `slow-` names answer only after it. */
const untilDeadline = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

/** Rejects when the deadline fires, having done nothing: how `lost-` names never answer. */
const never = (signal: AbortSignal) =>
  new Promise<never>((_, reject) => {
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });

const sldOf = (domain: string) => domain.split('.')[0] ?? '';
const testName = (domain: string): 'taken' | 'premium' | 'fail' | 'slow' | 'lost' | undefined => {
  const match = /^(taken|premium|fail|slow|lost)-/.exec(sldOf(domain));
  return match?.[1] as ReturnType<typeof testName>;
};

const addYears = (date: string, years: number) => {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  return d.toISOString().slice(0, 10);
};

const EPP_CODE_BYTES = 9;
const RANDOM_POOL_BYTES = 4095;
let randomPool = Buffer.alloc(0);
let randomAt = 0;

/**
 * A new name's EPP code: 9 random bytes in base64url, taken from a pool refilled 4 KiB at a time
 * (one call to the platform's generator per 455 codes instead of one per registration; the same
 * bytes, as random).
 */
function newEppCode(): string {
  if (randomAt + EPP_CODE_BYTES > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomAt = 0;
  }
  const code = randomPool.toString('base64url', randomAt, randomAt + EPP_CODE_BYTES);
  randomAt += EPP_CODE_BYTES;
  return code;
}

const refused = (message: string): RegistrarOutcome<never> => ({ ok: false, reason: 'refused', message });
const notHere = (domain: string) => refused(`${domain} is not registered at the sandbox registry`);
const ok = { ok: true } as const;

export default defineRegistrarPlugin<SandboxOptions, RegistrarPlugin>({
  id: 'sandbox',
  apiVersion: 1,
  parseOptions,
  create(options, host): RegistrarPlugin {
    return createSandbox(options, host);
  },
});

function createSandbox(options: SandboxOptions, host: PluginHost): RegistrarPlugin {
  const { clock } = host;
  const store = options.registry === 'memory' ? new MemoryPluginStore() : host.store;
  const key = (domain: string) => `domain:${domain}`;
  const today = () => clock.now().toISOString().slice(0, 10);
  const load = (domain: string) => store.get<RegistryEntry>(key(domain));
  const save = (domain: string, entry: RegistryEntry) => store.set(key(domain), entry);
  const latency = (ctx: CallContext) => wait(options.latencyMs, ctx.signal);

  /** Loads a name this registry holds as active; the other states are refused like a real registry would. */
  async function active(domain: string): Promise<RegistryEntry | RegistrarOutcome<never>> {
    const entry = await load(domain);
    if (!entry || entry.status === 'deleted') return notHere(domain);
    if (entry.status === 'transferredAway')
      return refused(`${domain} has been transferred away from the sandbox registry`);
    if (entry.status === 'pendingTransfer') return refused(`${domain} is still being transferred in`);
    return entry;
  }
  const isOutcome = (value: RegistryEntry | RegistrarOutcome<never>): value is RegistrarOutcome<never> => 'ok' in value;

  /** Loads an active name, applies a change and stores it. */
  async function change(
    domain: string,
    ctx: CallContext,
    apply: (entry: RegistryEntry) => RegistrarOutcome | void,
  ): Promise<RegistrarOutcome> {
    await latency(ctx);
    const entry = await active(domain);
    if (isOutcome(entry)) return entry;
    const outcome = apply(entry);
    if (outcome && !outcome.ok) return outcome;
    await save(domain, entry);
    return ok;
  }

  async function read<T extends object>(
    domain: string,
    ctx: CallContext,
    pick: (entry: RegistryEntry) => T,
  ): Promise<RegistrarOutcome<T>> {
    await latency(ctx);
    const entry = await active(domain);
    return isOutcome(entry) ? entry : { ok: true, ...pick(entry) };
  }

  const fresh = (
    expiryDate: string,
    status: RegistryStatus,
    nameservers: readonly string[],
    contacts: Contacts,
  ): RegistryEntry => ({
    status,
    expiryDate,
    nameservers: [...nameservers],
    locked: true,
    idProtection: false,
    dnsRecords: [],
    contacts,
    forwards: [],
    eppCode: newEppCode(),
    hosts: {},
    nextRecordId: 1,
  });

  const isAvailable = async (domain: string) => {
    if (testName(domain) === 'taken') return false;
    const entry = await load(domain);
    return !entry || entry.status === 'deleted' || entry.status === 'transferredAway';
  };

  return {
    id: 'sandbox',

    async checkAvailability(domains, ctx) {
      await latency(ctx);
      return Promise.all(
        domains.map(async (domain): Promise<AvailabilityResult> => {
          if (!(await isAvailable(domain))) return { domain, status: 'registered' };
          return testName(domain) === 'premium'
            ? { domain, status: 'available', isPremium: true, premiumPrice: { ...PREMIUM_PRICE } }
            : { domain, status: 'available' };
        }),
      );
    },

    async register(input, ctx) {
      await latency(ctx);
      const name = testName(input.domain);
      if (name === 'lost') return never(ctx.signal);
      if (name === 'fail')
        return refused(`Sandbox registry error: registration of ${input.domain} failed (test name fail-)`);
      if (name === 'taken')
        return { ok: false, reason: 'unavailable', message: `${input.domain} is already registered` };
      const entry = fresh(addYears(today(), input.period), 'active', input.nameservers, input.contacts);
      entry.idProtection = input.addons.idprotection === true;
      // A new name is one insert; only a name the registry has seen before needs a look at its entry.
      if (!(await store.setIfAbsent(key(input.domain), entry))) {
        // Only a deleted or transferred-away name is left behind; it can be registered again.
        if (!(await isAvailable(input.domain)))
          return { ok: false, reason: 'unavailable', message: `${input.domain} is already registered` };
        await save(input.domain, entry);
      }
      if (name === 'slow') await untilDeadline(ctx.signal);
      return { ok: true, expiryDate: entry.expiryDate };
    },

    async renew(input, ctx) {
      await latency(ctx);
      const name = testName(input.domain);
      if (name === 'lost') return never(ctx.signal);
      if (name === 'fail')
        return refused(`Sandbox registry error: renewal of ${input.domain} failed (test name fail-)`);
      const entry = await active(input.domain);
      if (isOutcome(entry)) return entry;
      entry.expiryDate = addYears(entry.expiryDate, input.period);
      await save(input.domain, entry);
      if (name === 'slow') await untilDeadline(ctx.signal);
      return { ok: true, expiryDate: entry.expiryDate };
    },

    transfer: {
      async transfer(input, ctx) {
        await latency(ctx);
        const name = testName(input.domain);
        if (name === 'lost') return never(ctx.signal);
        if (name === 'fail')
          return refused(`Sandbox registry error: transfer of ${input.domain} failed (test name fail-)`);
        if (input.eppCode.trim() === '') return refused('an EPP code is required to transfer a domain');
        const existing = await load(input.domain);
        if (existing && (existing.status === 'active' || existing.status === 'pendingTransfer')) {
          return refused(`${input.domain} is already at the sandbox registry`);
        }
        const entry = fresh(addYears(today(), input.period), 'pendingTransfer', input.nameservers, input.contacts);
        await save(input.domain, entry);
        if (name === 'slow') await untilDeadline(ctx.signal);
        return {
          ok: false,
          reason: 'pending',
          message: `transfer of ${input.domain} requested; the sandbox completes it at the next transfer sync`,
        };
      },
    },

    domainInformation: {
      get: ({ domain }, ctx) =>
        read(
          domain,
          ctx,
          (e): DomainInformation => ({
            nameservers: e.nameservers,
            transferLock: e.locked,
            expiryDate: e.expiryDate,
            registrationStatus: e.expiryDate < today() ? 'Expired' : 'Active',
            idProtection: e.idProtection,
            restorable: false,
            ...(e.contacts.registrant?.email ? { registrantEmail: e.contacts.registrant.email } : {}),
          }),
        ),
    },

    nameservers: {
      get: ({ domain }, ctx) => read(domain, ctx, (e) => ({ nameservers: e.nameservers })),
      save: ({ domain, nameservers }, ctx) =>
        change(domain, ctx, (e) => {
          e.nameservers = [...nameservers];
        }),
    },

    childHosts: {
      register: ({ domain, host: child, ipAddress }, ctx) =>
        change(domain, ctx, (e) => {
          if (!child.endsWith(`.${domain}`)) return refused(`${child} is not a host under ${domain}`);
          if (e.hosts[child]) return refused(`${child} is already registered`);
          e.hosts[child] = [ipAddress];
        }),
      modify: ({ domain, host: child, currentIpAddress, newIpAddress }, ctx) =>
        change(domain, ctx, (e) => {
          const ips = e.hosts[child];
          if (!ips) return refused(`${child} is not registered`);
          if (!ips.includes(currentIpAddress)) return refused(`${child} does not have the address ${currentIpAddress}`);
          e.hosts[child] = ips.map((ip) => (ip === currentIpAddress ? newIpAddress : ip));
        }),
      delete: ({ domain, host: child }, ctx) =>
        change(domain, ctx, (e) => {
          if (!e.hosts[child]) return refused(`${child} is not registered`);
          if (e.nameservers.includes(child)) return refused(`${child} is in use as a nameserver of ${domain}`);
          delete e.hosts[child];
        }),
    },

    dnsRecords: {
      get: ({ domain }, ctx) => read(domain, ctx, (e) => ({ records: e.dnsRecords })),
      save: ({ domain, records }, ctx) =>
        change(domain, ctx, (e) => {
          e.dnsRecords = records.map((r) => {
            const { recid, ...record } = r;
            return { ...record, recid: recid && recid !== '' ? recid : String(e.nextRecordId++) };
          });
        }),
    },

    registrarLock: {
      get: ({ domain }, ctx) => read(domain, ctx, (e) => ({ locked: e.locked })),
      save: ({ domain, locked }, ctx) =>
        change(domain, ctx, (e) => {
          e.locked = locked;
        }),
    },

    idProtection: {
      save: ({ domain, enabled }, ctx) =>
        change(domain, ctx, (e) => {
          e.idProtection = enabled;
        }),
    },

    eppCode: {
      get: ({ domain }, ctx) => read(domain, ctx, (e) => ({ eppCode: e.eppCode })),
    },

    contacts: {
      get: ({ domain }, ctx) => read(domain, ctx, (e) => ({ contacts: e.contacts })),
      save: ({ domain, contacts }, ctx) =>
        change(domain, ctx, (e) => {
          e.contacts = { ...e.contacts, ...contacts };
        }),
    },

    emailForwarding: {
      get: ({ domain }, ctx) => read(domain, ctx, (e) => ({ forwards: e.forwards })),
      save: ({ domain, forwards }, ctx) =>
        change(domain, ctx, (e) => {
          e.forwards = forwards.map((f) => ({ ...f }));
        }),
    },

    delete: {
      delete: ({ domain }, ctx) =>
        change(domain, ctx, (e) => {
          e.status = 'deleted';
        }),
    },

    release: {
      release: ({ domain, transferTag }, ctx) =>
        change(domain, ctx, (e) => {
          if (transferTag.trim() === '') return refused('a transfer tag is required');
          e.status = 'transferredAway';
        }),
    },

    domainSync: {
      async sync({ domain }, ctx): Promise<RegistrarOutcome<DomainSyncResult>> {
        await latency(ctx);
        const entry = await load(domain);
        if (!entry) return notHere(domain);
        const expired = entry.expiryDate < today();
        return {
          ok: true,
          active: entry.status === 'active' && !expired,
          expired: entry.status === 'active' && expired,
          transferredAway: entry.status === 'transferredAway',
          cancelled: entry.status === 'deleted',
          expiryDate: entry.expiryDate,
        };
      },
    },

    transferSync: {
      async sync({ domain }, ctx): Promise<RegistrarOutcome<TransferSyncResult>> {
        await latency(ctx);
        const entry = await load(domain);
        if (!entry) return notHere(domain);
        if (entry.status === 'pendingTransfer') {
          // The sandbox's transfers complete at the first transfer sync after the request.
          entry.status = 'active';
          await save(domain, entry);
        }
        if (entry.status === 'active')
          return { ok: true, completed: true, failed: false, expiryDate: entry.expiryDate };
        return {
          ok: true,
          completed: false,
          failed: true,
          reason: `${domain} is ${entry.status === 'deleted' ? 'deleted' : 'transferred away'}`,
        };
      },
    },

    suggestions: {
      async suggest({ term, tlds, limit }, ctx) {
        await latency(ctx);
        // Candidates come from the Unicode label (bücher, not xn--bcher-kva), then each whole
        // candidate is converted with UTS-46 and dropped when it is not valid IDNA: gluing an
        // affix to the punycode would give getxn--bcher-kva or xn--bcher-kvahq (büýÿcher).
        const base = toUnicode(term, IDNA)
          .domain.normalize('NFC')
          .toLowerCase()
          .replace(/[^\p{L}\p{M}\p{N}-]+/gu, '')
          .replace(/^-+|-+$/g, '')
          .slice(0, 50);
        if (base === '') return [];
        const labels = [base, `get${base}`, `${base}online`, `my${base}`, `${base}hq`];
        const names = labels.flatMap((label, i) =>
          tlds.flatMap((tld, j) => {
            const domain = toASCII(`${label}${tld}`, IDNA);
            return domain === null ? [] : [{ domain, score: Math.max(0, 100 - i * 15 - j * 2) }];
          }),
        );
        return names.slice(0, Math.max(0, limit));
      },
    },

    domainPricing: {
      // Like a registry's fee check: the price of a name whatever its state (registered names included).
      async price({ domain, action, period }, ctx) {
        await latency(ctx);
        if (testName(domain) !== 'premium') return { ok: true, isPremium: false };
        return { ok: true, isPremium: true, cost: PREMIUM_PRICE[action] * period };
      },
    },

    tldPricing: {
      async prices(ctx) {
        await latency(ctx);
        return PRICE_LIST.map(
          ([tld, register, renew, transfer]): TldPriceOffer => ({ tld, period: 1, register, renew, transfer }),
        );
      },
    },
  };
}
