import { readFileSync } from 'node:fs';
import type { CliRuntime } from './cli-program';
import { parseAddonPrices } from './price-syntax';

export function groupCommands(cli: CliRuntime): void {
  const group = cli.group('group', 'reseller groups: each group has its own prices');

  cli
    .command(group, 'create <name>', 'create a group')
    .action(cli.action(({ module }, [name]) => module.services.resellers.createGroup(name)));

  cli
    .command(group, 'list', 'list the groups')
    .action(cli.action(({ module }) => module.services.resellers.listGroups()));

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
