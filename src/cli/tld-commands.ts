import { ORDER_ACTIONS, type OrderAction, type PeriodPrices } from '../core/catalogue/catalogue';
import { type CliRuntime, wholeNumber } from './cli-program';
import { parsePeriodPrices } from './price-syntax';

interface TldSetOptions {
  readonly group: string;
  readonly registrar: string;
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
    .requiredOption('--registrar <plugin>', 'the registrar plugin that serves the TLD')
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
    .command(tld, 'list', 'list the TLDs on sale')
    .action(cli.action(({ module }) => module.services.catalogue.listTlds()));
}

function priceLists(options: TldSetOptions): Partial<Record<OrderAction, PeriodPrices>> {
  const lists: Partial<Record<OrderAction, PeriodPrices>> = {};
  for (const action of ORDER_ACTIONS) {
    const text = options[action];
    if (text !== undefined) lists[action] = parsePeriodPrices(text, action);
  }
  return lists;
}
