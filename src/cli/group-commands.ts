import { readFileSync } from 'node:fs';
import { type CliRuntime, UsageError } from './cli-program';
import type { PremiumRule } from '../core/catalogue/premium';
import { describeGroup, priceRows } from './catalogue-views';
import { parseAddonPrices, parseMarkup, parsePremiumTable } from './price-syntax';

export function groupCommands(cli: CliRuntime): void {
  const group = cli.group('group', 'reseller groups: each group has its own prices');

  cli
    .command(group, 'create <name>', 'create a group')
    .action(cli.action(({ module }, [name]) => module.services.resellers.createGroup(name)));

  cli.command(group, 'list', 'list the groups with their premium rule and addon prices').action(
    cli.action(async ({ module }) =>
      Promise.all(
        (await module.services.resellers.listGroups()).map(async (g) => {
          const { defaultContact, ...shown } = await describeGroup(module, g);
          return { ...shown, defaultContact: defaultContact !== null };
        }),
      ),
    ),
  );

  cli
    .command(group, 'rename <name> <new-name>', 'rename a group (its resellers and prices stay with it)')
    .action(cli.action(({ module }, [name, newName]) => module.services.resellers.renameGroup(name, newName)));

  cli
    .command(group, 'delete <name>', 'delete a group and its prices; refused while resellers are in it')
    .action(cli.action(({ module }, [name]) => module.services.resellers.deleteGroup(name)));

  cli
    .command(group, 'show <name>', 'one group: its prices per TLD, addon prices, premium rule and default contact')
    .action(
      cli.action(async ({ module }, [name]) => {
        const found = await module.services.resellers.group(name);
        return {
          ...(await describeGroup(module, found)),
          prices: priceRows(await module.services.catalogue.pricesOf(found.id)),
        };
      }),
    );

  cli
    .command(
      group,
      'set-default-contact <group> <json-file>',
      'store the registrant contact used when an order gives none (one JSON object of text fields)',
    )
    .action(
      cli.action(({ module }, [groupName, file]) =>
        module.services.resellers.setDefaultContact(groupName, readContact(file)),
      ),
    );

  cli
    .command(group, 'set-addon-prices <group>', "set the group's yearly addon prices (an addon never priced is free)")
    .requiredOption('--addons <prices>', 'addon=yearly price pairs, like "idprotection=2.00,dnsmanagement=0"')
    .action(
      cli.action<{ addons: string }>(({ module }, [groupName], { addons }) =>
        module.services.catalogue.setAddonPrices(groupName, parseAddonPrices(addons)),
      ),
    );

  cli
    .command(
      group,
      'set-premium-rule <group>',
      "set how the group's premium names are priced from the registry's cost (no rule: premium names are not sold)",
    )
    .option('--markup <percent>', 'the cost plus this percentage, like 20 or 12.5', parseMarkup)
    .option('--table <bands>', 'fixed prices by cost band, like "100.00=150.00,500.00=650.00"', parsePremiumTable)
    .option('--none', 'remove the rule: premium names are no longer sold to the group')
    .action(
      cli.action<{ markup?: number; table?: Array<{ upTo: number; price: number }>; none?: boolean }>(
        ({ module }, [groupName], options) =>
          module.services.catalogue.setPremiumRule(groupName, premiumRuleOf(options)),
      ),
    );
}

function premiumRuleOf(options: {
  markup?: number;
  table?: Array<{ upTo: number; price: number }>;
  none?: boolean;
}): PremiumRule | null {
  const given = [options.markup !== undefined, options.table !== undefined, options.none === true].filter(Boolean);
  if (given.length !== 1) throw new UsageError('give exactly one of --markup, --table or --none');
  if (options.markup !== undefined) return { kind: 'markup', basisPoints: options.markup };
  if (options.table) return { kind: 'table', bands: options.table };
  return null;
}

function readContact(file: string): Record<string, string> {
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
  return contact as Record<string, string>;
}
