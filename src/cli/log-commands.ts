import { currentActor } from '../core/audit/audit-log';
import { parseDomainName } from '../core/domain/domain-name';
import { type CliRuntime, flagValue, wholeNumber } from './cli-program';

interface LogOptions {
  readonly since?: Date;
  readonly domain?: string;
  readonly limit?: number;
}

export function logCommands(cli: CliRuntime): void {
  const log = cli
    .command(cli.program, 'log <email>', "the reseller's API calls, newest first (default: the last 100)")
    .option(
      '--since <when>',
      'a date like 2026-11-21 (UTC), a date-time, or a span like 90m, 24h, 7d',
      since('--since'),
    )
    .option('--domain <name>', 'only calls about this domain', flagValue(domainFlag))
    .option('--limit <n>', 'at most this many calls', wholeNumber('limit'))
    .action(
      cli.action<LogOptions>(async ({ module }, [email], options) => {
        const reseller = await module.services.resellers.byEmail(email);
        const entries = await module.services.apiLog.find(reseller.id, options);
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
      }),
    );

  cli
    .command(log, 'purge', 'delete API log entries older than API_LOG_RETENTION_DAYS, or than --before')
    .option('--before <when>', 'a date, a date-time, or a span back from now like 30d', since('--before'))
    .action(
      cli.action<{ before?: Date }>(async ({ module }, _args, options) => {
        // A purge deletes in chunks, each its own statement (no long lock), so it is not one transaction:
        // its entry is written once it ends, with what it deleted.
        const purged = await module.services.apiLog.purge(options.before);
        await module.services.audit.record(currentActor(), {
          action: 'api_log.purge',
          subject: null,
          after: purged,
        });
        return purged;
      }),
    );
}

function domainFlag(text: string): string {
  try {
    return parseDomainName(text).ascii;
  } catch {
    throw new Error(`--domain: "${text}" is not a domain name`);
  }
}

/** An ISO date or date-time, or a span back from now: `90m`, `24h`, `7d`. */
export function since(flag: string): (text: string) => Date {
  return flagValue((text) => {
    const trimmed = text.trim();
    const span = /^(\d{1,6})([mhd])$/.exec(trimmed);
    if (span) {
      const unitMs = { m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as 'm' | 'h' | 'd'];
      return new Date(Date.now() - Number(span[1]) * unitMs);
    }
    const at = /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(trimmed)
      ? new Date(trimmed.length === 10 ? `${trimmed}T00:00:00Z` : trimmed)
      : new Date(Number.NaN);
    if (Number.isNaN(at.getTime()))
      throw new Error(`${flag} must be a date like 2026-11-21 (UTC), a date-time, or a span like 24h or 7d`);
    return at;
  });
}
