import { Option } from 'commander';
import { parseTld } from '../core/domain/domain-name';
import { ORDER_ACTIONS, type OrderAction, type PeriodPrices } from '../core/catalogue/catalogue';
import type { CostPriceImportPlan, PriceChange, Rounding } from '../core/catalogue/cost-price-import';
import { formatAmount, type Minor } from '../core/common/money';
import { type CliIo, type CliRuntime, UsageError, wholeNumber } from './cli-program';
import { describeTld, priceRows } from './catalogue-views';
import { databaseErrorCode } from '../infra/db/errors';
import { parsePercent, parsePeriodPrices, parseRounding, parseTldList, priceFlag } from './price-syntax';

interface ImportCostsOptions {
  readonly group: string;
  readonly percent?: number;
  readonly fixed?: Minor;
  readonly round: Rounding;
  readonly tlds?: string[];
  readonly dryRun?: boolean;
  readonly allowZeroCost?: boolean;
}

interface TldSetOptions {
  readonly group: string;
  readonly registrar?: string;
  readonly register?: string;
  readonly renew?: string;
  readonly transfer?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly graceDays?: number;
  readonly redemptionDays?: number;
}

export function tldCommands(cli: CliRuntime): void {
  const tld = cli.group('tld', 'the TLDs on sale, their registrar and their prices per group');

  cli
    .command(tld, 'set <tld>', "offer a TLD through a registrar plugin, or change it; set a group's prices for it")
    .requiredOption('--group <name>', 'the group whose prices are set')
    .option('--registrar <plugin>', 'the registrar plugin that serves the TLD (required for a new TLD; kept otherwise)')
    .option('--register <prices>', 'years=price pairs, like "1=10.00,2=19.50" (required for a new TLD)')
    .option('--renew <prices>', 'years=price pairs; replaces all renew prices of the group')
    .option('--transfer <prices>', 'years=price pairs; replaces all transfer prices of the group')
    .option('--min-length <n>', 'shortest name under the TLD', wholeNumber('min-length'))
    .option('--max-length <n>', 'longest name under the TLD', wholeNumber('max-length'))
    .option('--grace-days <n>', 'days after expiry in which a renewal is still possible', wholeNumber('grace-days'))
    .option('--redemption-days <n>', 'days of redemption after the grace period', wholeNumber('redemption-days'))
    .addHelpText('after', '\nAn action left out keeps its prices.')
    .action(
      cli.action<TldSetOptions>(({ module }, [tldName], options) =>
        module.services.catalogue.setTld({
          tld: tldName,
          group: options.group,
          registrar: options.registrar,
          prices: priceLists(options),
          minLength: options.minLength,
          maxLength: options.maxLength,
          graceDays: options.graceDays,
          redemptionDays: options.redemptionDays,
        }),
      ),
    );

  cli
    .command(
      tld,
      'import-costs <registrar>',
      "set a group's prices from the registrar's cost prices plus a margin, in one transaction; prints the diff on stderr",
    )
    .requiredOption('--group <name>', 'the group whose prices are set')
    .option('--percent <n>', 'margin as a percentage of the cost, like 20 or 12.5', parsePercent)
    .option('--fixed <amount>', 'margin as a fixed amount added after the percentage, like 1.00', priceFlag('--fixed'))
    .addOption(
      new Option(
        '--round <rule>',
        'round each price up: none, to a price ending in given cents (x.99, x.00, x.95), or to a multiple (0.50, 1.00)',
      )
        .argParser(parseRounding)
        .default({ kind: 'none' }, 'none'),
    )
    .option(
      '--tlds <list>',
      'only these TLDs, like ".com,.net" (default: every TLD the registrar prices)',
      parseTldList,
    )
    .option('--allow-zero-cost', 'import a cost of 0.00 (refused otherwise: more often a gap in the list than a gift)')
    .option('--dry-run', 'show the diff, or the refusal, the real run would give; change nothing')
    .addHelpText(
      'after',
      '\nA TLD not on sale yet is added, served by this registrar; one served by another registrar is skipped.\n' +
        'For each action the registrar prices, the group keeps exactly the periods it prices (others are removed:\n' +
        'their old prices may now be below cost); actions it does not price keep their prices.',
    )
    .action(
      cli.action<ImportCostsOptions>(async ({ module, io }, [registrar], options) => {
        if (options.percent === undefined && options.fixed === undefined)
          throw new UsageError('give the margin: --percent, --fixed or both (--percent 0 sells at cost)');
        const dryRun = options.dryRun === true;
        // Planned and written in one transaction; a dry run plans in one and writes nothing.
        const plan = await withoutStatements(
          module.services.costPrices.run(
            {
              registrar,
              group: options.group,
              margin: { percentBasisPoints: options.percent ?? 0, fixed: options.fixed ?? 0, rounding: options.round },
              tlds: options.tlds,
              allowZeroCost: options.allowZeroCost === true,
            },
            { dryRun },
          ),
        );
        printDiff(io, plan);
        io.stderr.write(`${summaryOf(plan, dryRun)}\n`);
        return describePlan(plan, dryRun);
      }),
    );

  cli.command(tld, 'list', 'list the TLDs on sale, with their prices per group').action(
    cli.action(async ({ module }) => {
      const { catalogue, resellers } = module.services;
      const [tlds, groups] = await Promise.all([catalogue.listTlds(), resellers.listGroups()]);
      const prices = (
        await Promise.all(groups.map(async (g) => priceRows(await catalogue.pricesOf(g.id), { group: g.name })))
      ).flat();
      const registrarOf = new Map(tlds.map((t) => [t.tld, t.registrar]));
      return tlds.flatMap((t) => {
        const rows = prices.filter((p) => p.tld === t.tld);
        const base = { tld: t.tld, registrar: registrarOf.get(t.tld) };
        return rows.length === 0
          ? [{ ...base, group: null, register: null, renew: null, transfer: null }]
          : rows.map(({ tld: _tld, ...byGroup }) => ({ ...base, ...byGroup }));
      });
    }),
  );

  cli
    .command(
      tld,
      'stop-selling <tld>',
      'stop selling a TLD to a group: its register and transfer prices go; renewals stay',
    )
    .requiredOption('--group <name>', 'the group that no longer buys it')
    .action(
      cli.action<{ group: string }>(({ module }, [name], { group }) =>
        module.services.catalogue.stopSelling(group, name),
      ),
    );

  cli
    .command(tld, 'remove-price <tld>', "remove one period's price of one action for a group; its other prices stay")
    .requiredOption('--group <name>', 'the group whose price goes')
    .addOption(new Option('--action <action>', 'which price').choices(ORDER_ACTIONS).makeOptionMandatory())
    .requiredOption('--period <years>', 'the period, in years', wholeNumber('period', 1, 10))
    .action(
      cli.action<{ group: string; action: OrderAction; period: number }>(({ module }, [name], options) =>
        module.services.catalogue.removePrice(options.group, name, options.action, options.period),
      ),
    );

  cli.command(tld, 'show <tld>', 'one TLD: its registrar, limits and prices per group').action(
    cli.action(async ({ module }, [name]) => {
      const wanted = parseTld(name).ascii;
      const found = (await module.services.catalogue.listTlds()).find((t) => t.tld === wanted);
      if (!found) throw new Error(`${wanted} is not on sale (tld list shows those that are)`);
      return describeTld(module, found);
    }),
  );
}

function priceLists(options: TldSetOptions): Partial<Record<OrderAction, PeriodPrices>> {
  const lists: Partial<Record<OrderAction, PeriodPrices>> = {};
  for (const action of ORDER_ACTIONS) {
    const text = options[action];
    if (text !== undefined) lists[action] = parsePeriodPrices(text, action);
  }
  return lists;
}

const amount = (minor: Minor | null) => (minor === null ? null : formatAmount(minor));

function describeChange(c: PriceChange) {
  return {
    tld: c.tld,
    action: c.action,
    period: c.period,
    cost: amount(c.cost),
    from: amount(c.from),
    to: amount(c.to),
  };
}

function describePlan(plan: CostPriceImportPlan, dryRun: boolean) {
  return {
    registrar: plan.registrar,
    group: plan.group,
    dryRun,
    applied: plan.applied,
    newTlds: plan.newTlds,
    changes: plan.changes.map(describeChange),
    unchanged: plan.unchanged,
    skipped: plan.skipped,
  };
}

/** The diff for a person, on stderr: one line per price, like `.com register 1y: 10.00 -> 10.99 (cost 8.00)`. */
function printDiff(io: CliIo, plan: CostPriceImportPlan): void {
  const lines = plan.changes.map((c) => {
    const what = `${c.tld} ${c.action} ${c.period}y`;
    if (c.to === null) return `- ${what}: ${amount(c.from)} removed (no longer priced by ${plan.registrar})`;
    if (c.from === null) return `+ ${what}: ${amount(c.to)} (cost ${amount(c.cost)})`;
    return `~ ${what}: ${amount(c.from)} -> ${amount(c.to)} (cost ${amount(c.cost)})`;
  });
  for (const s of plan.skipped) lines.push(`  ${s.tld} skipped: ${s.reason}`);
  if (lines.length > 0) io.stderr.write(`${lines.join('\n')}\n`);
}

/** The last line on stderr: what was done, in words that fit it (a dry run changes nothing). */
function summaryOf(plan: CostPriceImportPlan, dryRun: boolean): string {
  const count = plan.changes.length;
  const prices = `${count} price${count === 1 ? '' : 's'}`;
  const done =
    count === 0
      ? 'nothing to change'
      : dryRun
        ? `${prices} would change (dry run: nothing written)`
        : `${prices} changed`;
  return `${done}, ${plan.unchanged} unchanged, group ${plan.group}`;
}

/**
 * A database error said without its statement (the driver's message carries the SQL): the
 * import wrote nothing, since everything is written in one transaction.
 */
async function withoutStatements<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    const code = databaseErrorCode(error);
    if (code === undefined) throw error;
    const busy = /BUSY|LOCKED|DEADLOCK|LOCK_WAIT/.test(code);
    throw new Error(
      busy
        ? `the database was busy with other writes (${code}); nothing was written; run the import again`
        : `the database refused the import (${code}); nothing was written`,
    );
  }
}
