import type { Tld, TldPrice } from '../core/catalogue/catalogue';
import { describePremiumRule } from '../core/catalogue/premium';
import { formatAmount } from '../core/common/money';
import type { ResellerGroup } from '../core/reseller/reseller';
import type { ResellerModule } from '../module';

/**
 * What an operator sees of groups and TLDs (`group list|show`, `tld list|show`): the prices, the
 * addon prices and the premium rule as they are set, read through the same services as the API.
 */

/** `{ ".com": { register: "1y 10.00, 2y 19.50", renew: "1y 11.00" } }`-like rows: one per TLD and action. */
export function priceRows(
  prices: readonly TldPrice[],
  extra: Record<string, string> = {},
): Array<Record<string, string | null>> {
  const byTld = new Map<string, Map<string, Array<[number, number]>>>();
  for (const p of prices) {
    const actions = byTld.get(p.tld) ?? new Map<string, Array<[number, number]>>();
    byTld.set(p.tld, actions);
    actions.set(p.action, [...(actions.get(p.action) ?? []), [p.period, p.price]]);
  }
  return [...byTld.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([tld, actions]) => ({
      ...extra,
      tld,
      ...Object.fromEntries(
        ['register', 'renew', 'transfer'].map((action) => [
          action,
          (actions.get(action) ?? [])
            .sort(([a], [b]) => a - b)
            .map(([period, price]) => `${period}y ${formatAmount(price)}`)
            .join(', ') || null,
        ]),
      ),
    }));
}

export async function describeGroup(module: ResellerModule, group: ResellerGroup) {
  const { catalogue, resellers } = module.services;
  const [addons, premium, members] = await Promise.all([
    catalogue.addonPrices(group.id),
    catalogue.premiumRule(group.id),
    resellers.list(),
  ]);
  return {
    name: group.name,
    resellers: members.filter((r) => r.groupId === group.id).length,
    premium: describePremiumRule(premium),
    addonPrices: Object.fromEntries([...addons].map(([addon, price]) => [addon, formatAmount(price)])),
    defaultContact: group.defaultContact,
  };
}

export async function describeTld(module: ResellerModule, tld: Tld) {
  const { catalogue, resellers } = module.services;
  const groups = await resellers.listGroups();
  const prices = (
    await Promise.all(groups.map(async (g) => priceRows(await catalogue.pricesOf(g.id, tld.tld), { group: g.name })))
  ).flat();
  return { ...tld, prices: prices.map(({ tld: _tld, ...row }) => row) };
}
