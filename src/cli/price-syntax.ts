import type { AddonName, OrderAction, PeriodPrices } from '../core/catalogue/catalogue';
import type { Rounding } from '../core/catalogue/cost-price-import';
import { parseTld } from '../core/domain/domain-name';
import { type Minor, parseAmount } from '../core/common/money';
import { flagValue, UsageError } from './cli-program';

interface PairSyntax {
  readonly flag: string;
  /** How the flag is written, like `1=10.00,2=19.50`. */
  readonly example: string;
  /** What one pair means, like `years=price`. */
  readonly pair: string;
  /** The key's pattern, and what a key is called in messages. */
  readonly key: RegExp;
  readonly keyName: string;
}

/**
 * The CLI's price lists: `--register "1=10.00,2=19.50"` and `--addons "idprotection=2.00"`.
 * Only the syntax is checked here, in the flag's terms; which periods, addons and amounts are
 * allowed is the catalogue's rule (src/core/catalogue/catalogue.ts).
 */
function parsePairs(text: string, syntax: PairSyntax): Array<[string, Minor]> {
  const { flag, example, pair, key, keyName } = syntax;
  const seen = new Set<string>();
  const result: Array<[string, Minor]> = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const match = new RegExp(`^(${key.source})\\s*=\\s*(\\S+)$`, 'i').exec(part);
    if (!match) throw new UsageError(`${flag} must look like "${example}" (${pair}); got "${part}"`);
    const name = match[1].toLowerCase();
    if (seen.has(name)) throw new UsageError(`${flag}: ${keyName} ${name} is listed twice`);
    seen.add(name);
    try {
      result.push([name, parseAmount(match[2], `${flag} price for ${keyName} ${name}`)]);
    } catch (error) {
      throw new UsageError(error instanceof Error ? error.message : String(error));
    }
  }
  if (result.length === 0) throw new UsageError(`${flag} needs at least one "${pair}" pair`);
  return result;
}

/** `"1=10.00,2=19.50"` → `{ 1: 1000, 2: 1950 }`, for `--register`, `--renew` and `--transfer`. */
export function parsePeriodPrices(text: string, action: OrderAction): PeriodPrices {
  return Object.fromEntries(
    parsePairs(text, {
      flag: `--${action}`,
      example: '1=10.00,2=19.50',
      pair: 'years=price',
      key: /\d{1,2}/,
      keyName: 'period',
    }),
  );
}

/** `"idprotection=2.00,dnsmanagement=0"` → `{ idprotection: 200, dnsmanagement: 0 }`, for `--addons`. */
export function parseAddonPrices(text: string): Partial<Record<AddonName, Minor>> {
  return Object.fromEntries(
    parsePairs(text, {
      flag: '--addons',
      example: 'idprotection=2.00,dnsmanagement=0',
      pair: 'addon=yearly price',
      key: /[a-z]+/,
      keyName: 'addon',
    }),
  );
}

/** A percentage flag: `12.5` → 1250 basis points (hundredths of a percent), exactly. */
const percentFlag = (flag: string) =>
  flagValue((text: string): number => {
    const match = /^(\d{1,5})(?:\.(\d{1,2}))?%?$/.exec(text.trim());
    if (!match) throw new UsageError(`${flag} must be a percentage like 20 or 12.5`);
    return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  });

/** `--percent 12.5` → 1250 basis points. */
export const parsePercent = percentFlag('--percent');
/** `--markup 20` → 2000 basis points. */
export const parseMarkup = percentFlag('--markup');

/** `"100.00=150.00,500.00=650.00"` → premium bands (cost up to → price), for `--table`. */
export const parsePremiumTable = flagValue(
  (text: string): Array<{ upTo: Minor; price: Minor }> =>
    parsePairs(text, {
      flag: '--table',
      example: '100.00=150.00,500.00=650.00',
      pair: 'cost up to=price',
      key: /\d{1,9}(?:\.\d{1,2})?/,
      keyName: 'cost',
    }).map(([upTo, price]) => ({ upTo: parseAmount(upTo, '--table cost'), price })),
);

/** An amount flag like `--fixed 1.00`, in minor units; negative amounts are refused here. */
export function priceFlag(flag: string): (text: string) => Minor {
  return flagValue((text) => {
    const minor = parseAmount(text, flag);
    if (minor < 0) throw new UsageError(`${flag} cannot be negative`);
    return minor;
  });
}

/** `none`, `x.99` (the next price ending in .99) or `0.50` (the next multiple of 0.50). */
export const parseRounding = flagValue((text: string): Rounding => {
  const rule = text.trim().toLowerCase();
  if (rule === 'none') return { kind: 'none' };
  const ending = /^x\.(\d{2})$/.exec(rule);
  if (ending) return { kind: 'ending', cents: Number(ending[1]) };
  if (/^\d{1,7}(\.\d{1,2})?$/.test(rule) && parseAmount(rule) > 0) return { kind: 'multiple', of: parseAmount(rule) };
  throw new UsageError('--round must be none, a price ending like x.99, or a multiple like 0.50');
});

/** `".com,net"` → `['.com', '.net']`. */
export const parseTldList = flagValue((text: string): string[] => {
  const tlds = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)
    .map((t) => parseTld(t).ascii);
  if (tlds.length === 0) throw new UsageError('--tlds needs at least one TLD, like .com');
  return tlds;
});
