import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Writable } from 'node:stream';
import { loadSettings } from '../config/settings';
import { formatAmount, parseAmount } from '../core/shared/money';
import type { DomainRecord } from '../core/domain/domain';
import type { SyncRoundProgress } from '../core/domain/domain-sync-service';
import type { Order } from '../core/order/order';
import { parseDomainName } from '../core/domain/domain-name';
import { createLogger } from '../infra/logging';
import { createResellerModule, type ResellerModule } from '../module';

export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
}

class UsageError extends Error {}

export const USAGE = `Usage: reseller-admin <command>

  migrate
  group create <name>
  group list
  group set-default-contact <group> <json-file>
  group set-addon-prices <group> --addons "idprotection=2.00,dnsmanagement=0"   (yearly; an addon never priced is free)
  tld set <.tld> --group <name> --registrar <plugin> --register "1=10.00,2=19.50" [--renew "…"] [--transfer "…"]
          [--min-length N] [--max-length N] [--grace-days N] [--redemption-days N]
  tld list
  reseller create <email> --group <name> [--credit <amount>]
  reseller rotate-key <email>
  reseller suspend <email> | reseller activate <email>
  reseller list
  reseller allow-ip <email> <cidr>                (requests must come from an allowed range; a bare address is one host)
  reseller disallow-ip <email> <cidr>             (with the last range gone, any address is allowed again)
  reseller allowed-ips <email>
  credit add <email> <amount> [--note <text>]     (a negative amount is an adjustment; never below zero)
  credit show <email>
  domain show <domain>
  domain list [--reseller <email>]
  order list [--reseller <email>] [--status pending|completed|failed] [--domain <name>]
  order show <order-id>
  reconcile                                         (settle pending orders with the registrar: complete or refund)
  sync [--concurrency N]                            (one round of everything the server's background jobs do: reconcile
                                                    pending orders, then domain sync (Active, Grace, Redemption, Expired) and
                                                    transfer sync (Pending Transfer), N registrar calls at once per registrar
                                                    (default JOB_CONCURRENCY_PER_REGISTRAR); progress on stderr. Safe beside
                                                    running servers: each order and domain is claimed by one worker)
  log <email> [--since <date|24h|7d>] [--domain <name>] [--limit N]
                                                  (the reseller's API calls, newest first; default the last 100)
  log purge [--before <date>]                     (delete API log entries older than API_LOG_RETENTION_DAYS, or the date)

Every command prints JSON on stdout. DATABASE_URL and the other settings are read as the server reads them.`;

const OPTIONS = {
  group: { type: 'string' },
  registrar: { type: 'string' },
  register: { type: 'string' },
  renew: { type: 'string' },
  transfer: { type: 'string' },
  'min-length': { type: 'string' },
  'max-length': { type: 'string' },
  'grace-days': { type: 'string' },
  'redemption-days': { type: 'string' },
  credit: { type: 'string' },
  note: { type: 'string' },
  reseller: { type: 'string' },
  concurrency: { type: 'string' },
  since: { type: 'string' },
  domain: { type: 'string' },
  limit: { type: 'string' },
  before: { type: 'string' },
  addons: { type: 'string' },
  status: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

/** Runs one admin command; returns the process exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let parsed: { positionals: string[]; flags: Flags };
  try {
    parsed = parse(argv);
  } catch (error) {
    io.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`);
    return 2;
  }
  const { positionals, flags } = parsed;
  if (flags.help || positionals.length === 0) {
    io.stdout.write(`${USAGE}\n`);
    return positionals.length === 0 && !flags.help ? 2 : 0;
  }
  let module: ResellerModule | undefined;
  try {
    const settings = loadSettings(io.env);
    module = await createResellerModule({
      settings: { ...settings },
      logger: createLogger('warn', io.stderr as never),
    });
    // Like the server, the CLI brings the schema up to date first (safe alongside running servers).
    const applied = positionals[0] === 'migrate' ? [] : await module.migrate();
    const result =
      positionals[0] === 'migrate'
        ? { applied: await module.migrate() }
        : await dispatch(module, positionals, flags, io);
    if (applied.length > 0)
      io.stderr.write(`migrated the database: ${applied.join(', ')}
`);
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr.write(`${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    await module?.close();
  }
}

function parse(argv: readonly string[]): { positionals: string[]; flags: Flags } {
  // A negative amount ("credit add a@b.c -5.00") is a positional, not an option.
  const negatives = new Map<string, string>();
  const args = argv.map((arg, i) => {
    if (!/^-\d+(\.\d+)?$/.test(arg)) return arg;
    const marker = `\u0000negative${i}`;
    negatives.set(marker, arg);
    return marker;
  });
  const { positionals, values } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  return { positionals: positionals.map((p) => negatives.get(p) ?? p), flags: values as Flags };
}

function need(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${what}`);
  return value;
}

function optionalInt(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,4}$/.test(value)) throw new UsageError(`--${flag} must be a whole number`);
  return Number(value);
}

async function dispatch(
  module: ResellerModule,
  [noun, verb, ...args]: string[],
  flags: Flags,
  io: CliIo,
): Promise<unknown> {
  const { resellers, catalogue, credit, domains, orders } = module.services;
  if (noun === 'reconcile') {
    if (verb !== undefined) throw new UsageError('"reconcile" takes no arguments');
    return module.reconcile();
  }
  const command = `${noun} ${verb ?? ''}`.trim();
  switch (command) {
    case 'group create':
      return resellers.createGroup(need(args[0], '<name>'));
    case 'group list':
      return resellers.listGroups();
    case 'group set-default-contact': {
      const group = need(args[0], '<group>');
      const file = need(args[1], '<json-file>');
      let contact: unknown;
      try {
        contact = JSON.parse(readFileSync(file, 'utf8'));
      } catch {
        throw new Error(`${file} cannot be read as JSON`);
      }
      if (
        typeof contact !== 'object' ||
        contact === null ||
        Array.isArray(contact) ||
        !Object.values(contact).every((v) => typeof v === 'string')
      ) {
        throw new Error(`${file} must hold one JSON object of contact fields with text values`);
      }
      return resellers.setDefaultContact(group, contact as Record<string, string>);
    }
    case 'group set-addon-prices':
      return catalogue.setAddonPrices(need(args[0], '<group>'), need(flags.addons, '--addons'));
    case 'order list': {
      const resellerId = flags.reseller ? (await resellers.byEmail(flags.reseller)).id : undefined;
      const status = flags.status;
      if (status !== undefined && !['pending', 'completed', 'failed'].includes(status))
        throw new UsageError('--status must be pending, completed or failed');
      const list = await orders.list({
        resellerId,
        status: status as 'pending' | undefined,
        domain: flags.domain === undefined ? undefined : parseDomainName(flags.domain).ascii,
      });
      return list.map(describeOrder);
    }
    case 'order show': {
      const order = await orders.get(need(args[0], '<order-id>'));
      if (!order) throw new Error(`no order with id ${args[0]}`);
      return { ...describeOrder(order), request: order.request, originalVars: order.originalVars };
    }
    case 'tld set':
      return catalogue.setTld({
        tld: need(args[0], '<.tld>'),
        group: need(flags.group, '--group'),
        registrar: need(flags.registrar, '--registrar'),
        prices: { register: flags.register, renew: flags.renew, transfer: flags.transfer },
        minLength: optionalInt(flags['min-length'], 'min-length'),
        maxLength: optionalInt(flags['max-length'], 'max-length'),
        graceDays: optionalInt(flags['grace-days'], 'grace-days'),
        redemptionDays: optionalInt(flags['redemption-days'], 'redemption-days'),
      });
    case 'tld list':
      return catalogue.listTlds();
    case 'reseller create': {
      const opening = flags.credit === undefined ? 0 : parseAmount(flags.credit, '--credit');
      const { reseller, apiKey } = await resellers.create(
        need(args[0], '<email>'),
        need(flags.group, '--group'),
        opening,
      );
      return { email: reseller.email, apiKey };
    }
    case 'reseller rotate-key':
      return { apiKey: await resellers.rotateKey(need(args[0], '<email>')) };
    case 'reseller suspend':
    case 'reseller activate': {
      const reseller = await resellers.setStatus(need(args[0], '<email>'), verb === 'suspend' ? 'suspended' : 'active');
      return { email: reseller.email, status: reseller.status };
    }
    case 'reseller list':
      return Promise.all(
        (await resellers.list()).map(async (r) => ({
          email: r.email,
          status: r.status,
          balance: formatAmount(await credit.balance(r.id)),
        })),
      );
    case 'credit add': {
      const reseller = await resellers.byEmail(need(args[0], '<email>'));
      const amount = parseAmount(need(args[1], '<amount>'));
      const { entry, balance } = await credit.adjust(reseller.id, amount, flags.note ?? null);
      return {
        email: reseller.email,
        amount: formatAmount(entry.amount),
        kind: entry.kind,
        balance: formatAmount(balance),
      };
    }
    case 'credit show': {
      const reseller = await resellers.byEmail(need(args[0], '<email>'));
      const check = await credit.verify(reseller.id);
      const entries = await credit.entries(reseller.id, 20);
      return {
        email: reseller.email,
        balance: formatAmount(check.balance),
        consistent: check.consistent,
        recentEntries: entries.map((e) => ({
          amount: formatAmount(e.amount),
          kind: e.kind,
          orderId: e.orderId,
          note: e.note,
          at: e.createdAt.toISOString(),
        })),
      };
    }
    case 'domain show':
      return describeDomain(module, await domains.show(need(args[0], '<domain>')));
    case 'domain list': {
      const resellerId = flags.reseller ? (await resellers.byEmail(flags.reseller)).id : undefined;
      const list = await domains.list({ resellerId });
      return Promise.all(list.map((d) => describeDomain(module, d)));
    }
    case 'sync': {
      const concurrency = optionalInt(flags.concurrency, 'concurrency') ?? module.settings.jobConcurrencyPerRegistrar;
      if (concurrency < 1 || concurrency > 50) throw new UsageError('--concurrency must be from 1 to 50');
      // Pending orders first: a settled order turns its domain Active, and then it is synced too.
      const reconciliation = await module.reconcile();
      // A round: every domain not synced since the round started, whatever the interval says.
      const syncedBefore = new Date();
      // Batches of several calls per worker: a batch ends when its slowest call does, so small
      // batches leave workers waiting (bench/RESULTS.md, sync at scale).
      const batchSize = Math.max(module.settings.jobBatchSize, concurrency * 4);
      const domainsReport = await module.runSync('domain', {
        syncedBefore,
        concurrencyPerRegistrar: concurrency,
        batchSize,
        onProgress: progressLine(io, 'sync'),
      });
      if (domainsReport.total === 0) io.stderr.write('sync: no domains to sync\n');
      const transfersReport = await module.runSync('transfer', {
        syncedBefore,
        concurrencyPerRegistrar: concurrency,
        batchSize,
        onProgress: progressLine(io, 'transfer sync'),
      });
      return { reconciliation, domains: domainsReport, transfers: transfersReport };
    }
    case 'reseller allow-ip':
      return resellers.allowNetwork(need(args[0], '<email>'), need(args[1], '<cidr>'));
    case 'reseller disallow-ip':
      return resellers.disallowNetwork(need(args[0], '<email>'), need(args[1], '<cidr>'));
    case 'reseller allowed-ips':
      return resellers.allowedNetworks(need(args[0], '<email>'));
    case 'log purge': {
      const before = flags.before === undefined ? undefined : parseSince(flags.before, '--before');
      return module.services.apiLog.purge(before);
    }
    default:
      if (noun === 'log' && verb !== undefined) return readLog(module, verb, flags);
      throw new UsageError(`unknown command "${command}"`);
  }
}

async function readLog(module: ResellerModule, email: string, flags: Flags) {
  const reseller = await module.services.resellers.byEmail(email);
  const since = flags.since === undefined ? undefined : parseSince(flags.since, '--since');
  const limit = optionalInt(flags.limit, 'limit');
  let domain: string | undefined;
  if (flags.domain !== undefined) {
    try {
      domain = parseDomainName(flags.domain).ascii;
    } catch {
      throw new UsageError(`--domain: "${flags.domain}" is not a domain name`);
    }
  }
  const entries = await module.services.apiLog.find(reseller.id, { since, domain, limit });
  return entries.map((e) => ({
    at: e.at.toISOString(),
    method: e.method,
    route: e.route,
    domain: e.domain,
    status: e.status,
    ms: e.durationMs,
    error: e.error,
    requestId: e.requestId,
    clientIp: e.clientIp,
  }));
}

/** An ISO date or date-time, or a span back from now: `90m`, `24h`, `7d`. */
function parseSince(text: string, flag: string): Date {
  const span = /^(\d{1,6})([mhd])$/.exec(text.trim());
  if (span)
    return new Date(
      Date.now() - Number(span[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as 'm' | 'h' | 'd'],
    );
  const at = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text.trim())
    ? new Date(text.trim().length === 10 ? `${text.trim()}T00:00:00Z` : text.trim())
    : new Date(NaN);
  if (Number.isNaN(at.getTime()))
    throw new UsageError(`${flag} must be a date like 2026-11-21 (UTC), a date-time, or a span like 24h or 7d`);
  return at;
}

function describeOrder(o: Order) {
  return {
    id: o.id,
    action: o.action,
    domain: o.domain,
    status: o.status,
    period: o.period,
    price: formatAmount(o.price),
    registrar: o.registrar,
    expiryDate: o.expiryDate,
    note: o.note,
    reconcileAttempts: o.reconcileAttempts,
    createdAt: o.createdAt.toISOString(),
    settledAt: o.settledAt?.toISOString() ?? null,
  };
}

async function describeDomain(module: ResellerModule, d: DomainRecord) {
  const owner = await module.services.resellers.list().then((all) => all.find((r) => r.id === d.resellerId));
  return {
    domain: d.unicodeName,
    punycode: d.name,
    status: d.status,
    reseller: owner?.email ?? d.resellerId,
    registrar: d.registrar,
    expiryDate: d.expiryDate,
    nameservers: d.nameservers,
    transferLock: d.transferLock,
    addons: d.addons,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

/**
 * One progress line on stderr: rewritten in place on a terminal, otherwise printed about every 5%
 * so that logs stay short. stdout keeps the JSON result alone.
 */
function progressLine(io: CliIo, label: string): (p: SyncRoundProgress) => void {
  const isTty = (io.stderr as { isTTY?: boolean }).isTTY === true;
  let lastPrinted = 0;
  return ({ done, total, failed }) => {
    const line = `${label}: ${done}/${total} domains${failed > 0 ? `, ${failed} failed` : ''}`;
    if (isTty) {
      io.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
    } else if (done === total || done - lastPrinted >= Math.max(1, Math.ceil(total / 20))) {
      io.stderr.write(`${line}\n`);
      lastPrinted = done;
    }
  };
}
