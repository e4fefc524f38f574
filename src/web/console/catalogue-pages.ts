import { ADDONS, ORDER_ACTIONS, type OrderAction, type PeriodPrices } from '../../core/catalogue/catalogue';
import type { CostPriceImportInput, Rounding } from '../../core/catalogue/cost-price-import';
import type { PremiumRule } from '../../core/catalogue/premium';
import { describePremiumRule } from '../../core/catalogue/premium';
import { DomainError, isDomainError } from '../../core/common/errors';
import { formatAmount, type Minor, parseAmount } from '../../core/common/money';
import type { ResellerGroup } from '../../core/reseller/reseller';
import { STANDARD_CONTACT_FIELDS } from '../../core/domain/contact-fields';
import { TOKENS } from '../../core/tokens';
import type { Fields } from '../page-table';
import { field } from '../web-app';
import type { ConsoleContext, ConsolePage } from './console-access';

async function groupOf(ctx: ConsoleContext): Promise<ResellerGroup> {
  return ctx.resolve(TOKENS.resellerService).group(decodeURIComponent(ctx.params.name ?? ''));
}

const groupPath = (group: ResellerGroup, rest = '') => `/groups/${encodeURIComponent(group.name)}${rest}`;
const invalid = (message: string) => new DomainError('validation_failed', message);

/** "1=10.00, 2=19.50" → { 1: 1000, 2: 1950 }; an empty field leaves the action's prices as they are. */
export function periodPrices(text: string, action: OrderAction): PeriodPrices | undefined {
  const trimmed = text.trim();
  if (!trimmed) return undefined;
  const prices: Record<number, Minor> = {};
  for (const pair of trimmed.split(',')) {
    const match = /^\s*(\d{1,2})\s*=\s*(\S+)\s*$/.exec(pair);
    if (!match) throw invalid(`${action} prices must be years=price pairs like 1=10.00,2=19.50`);
    prices[Number(match[1])] = parseAmount(match[2]!, `${action} price`);
  }
  return prices;
}

/** A percentage like "12.5" in basis points (hundredths of a percent), exactly. */
function percent(text: string, what: string): number {
  const match = /^(\d{1,5})(?:\.(\d{1,2}))?%?$/.exec(text.trim());
  if (!match) throw invalid(`${what} must be a percentage like 20 or 12.5`);
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

function rounding(text: string): Rounding {
  const rule = text.trim().toLowerCase() || 'none';
  if (rule === 'none') return { kind: 'none' };
  const ending = /^x\.(\d{2})$/.exec(rule);
  if (ending) return { kind: 'ending', cents: Number(ending[1]) };
  if (/^\d{1,7}(\.\d{1,2})?$/.test(rule) && parseAmount(rule) > 0) return { kind: 'multiple', of: parseAmount(rule) };
  throw invalid('rounding must be none, a price ending like x.99, or a multiple like 0.50');
}

function premiumRuleOf(form: Fields): PremiumRule | null {
  const kind = field(form, 'kind');
  if (kind === 'none') return null;
  if (kind === 'markup') return { kind: 'markup', basisPoints: percent(field(form, 'markup'), 'the markup') };
  if (kind === 'table') {
    const bands = field(form, 'table')
      .split(',')
      .filter((b) => b.trim())
      .map((band) => {
        const match = /^\s*([\d.]+)\s*=\s*([\d.]+)\s*$/.exec(band);
        if (!match) throw invalid('the table must be cost=price pairs like 100.00=150.00,500.00=650.00');
        return { upTo: parseAmount(match[1]!, 'cost'), price: parseAmount(match[2]!, 'price') };
      });
    return { kind: 'table', bands };
  }
  throw invalid('choose no premium names, a markup or a table');
}

/** What a cost-import form asks for, checked. */
function importInput(group: ResellerGroup, form: Fields): CostPriceImportInput {
  const registrar = field(form, 'registrar');
  const percentText = field(form, 'percent');
  const fixedText = field(form, 'fixed');
  if (!percentText && !fixedText)
    throw invalid('Give the margin: a percentage, a fixed amount or both (0 % sells at cost)');
  const fixed = fixedText ? parseAmount(fixedText, 'fixed margin') : 0;
  if (fixed < 0) throw invalid('the fixed margin cannot be negative');
  const tlds = field(form, 'tlds')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return {
    registrar,
    group: group.name,
    margin: {
      percentBasisPoints: percentText ? percent(percentText, 'the percentage') : 0,
      fixed,
      rounding: rounding(field(form, 'round')),
    },
    tlds: tlds.length > 0 ? tlds : undefined,
  };
}

async function groupPage(ctx: ConsoleContext, group: ResellerGroup, extra: Record<string, unknown> = {}, status = 200) {
  const catalogue = ctx.resolve(TOKENS.catalogueService);
  const [tlds, prices, addons, premium] = await Promise.all([
    catalogue.listTlds(),
    ctx.resolve(TOKENS.unitOfWork).read.catalogue.prices(group.id),
    catalogue.addonPrices(group.id),
    catalogue.premiumRule(group.id),
  ]);
  // One row per TLD: each action's prices as "years=price" text, the form's own syntax.
  const matrix = tlds.map((tld) => {
    const row: Record<OrderAction, string> = { register: '', renew: '', transfer: '' };
    for (const action of ORDER_ACTIONS)
      row[action] = prices
        .filter((p) => p.tld === tld.tld && p.action === action)
        .sort((a, b) => a.period - b.period)
        .map((p) => `${p.period}=${formatAmount(p.price)}`)
        .join(', ');
    return { tld: tld.tld, registrar: tld.registrar, ...row, selling: row.register !== '' };
  });
  return ctx.render(
    'group',
    {
      pageTitle: `Group ${group.name}`,
      group,
      matrix,
      addons: ADDONS.map((a) => ({ name: a, price: formatAmount(addons.get(a) ?? 0) })),
      premium: describePremiumRule(premium),
      premiumRule: premium,
      contactFields: STANDARD_CONTACT_FIELDS,
      contact: group.defaultContact ?? {},
      registrars: ctx.resolve(TOKENS.registrars).ids(),
      notice: NOTICES[field(ctx.query, 'notice')],
      ...extra,
    },
    { status },
  );
}

/**
 * Runs a change (the service audits it in its transaction); a validation problem re-renders the
 * group page with the message (400) instead of an error page.
 */
async function changeGroup(ctx: ConsoleContext, notice: string, change: (group: ResellerGroup) => Promise<unknown>) {
  const group = await groupOf(ctx);
  try {
    await change(group);
    return ctx.redirect(groupPath(group, `?notice=${notice}`));
  } catch (error) {
    if (isDomainError(error) && error.code === 'validation_failed')
      return groupPage(ctx, group, { error: error.message }, 400);
    throw error;
  }
}

export const CATALOGUE_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/groups',
    access: 'viewer',
    handler: async (ctx) =>
      ctx.render('groups', { pageTitle: 'Groups', groups: await ctx.resolve(TOKENS.resellerService).listGroups() }),
  },
  {
    method: 'post',
    path: '/groups',
    access: 'admin',
    handler: async (ctx) => {
      const group = await ctx.resolve(TOKENS.resellerService).createGroup(field(ctx.form, 'name'));
      return ctx.redirect(groupPath(group));
    },
  },
  {
    method: 'get',
    path: '/groups/:name',
    access: 'viewer',
    handler: async (ctx) => groupPage(ctx, await groupOf(ctx)),
  },
  {
    method: 'post',
    path: '/groups/:name/prices',
    access: 'admin',
    handler: (ctx) =>
      changeGroup(ctx, 'prices', async (group) => {
        const tld = field(ctx.form, 'tld');
        const prices: Partial<Record<OrderAction, PeriodPrices>> = {};
        for (const action of ORDER_ACTIONS) {
          const list = periodPrices(field(ctx.form, action), action);
          if (list) prices[action] = list;
        }
        await ctx
          .resolve(TOKENS.catalogueService)
          .setTld({ tld, group: group.name, registrar: field(ctx.form, 'registrar'), prices });
      }),
  },
  {
    method: 'post',
    path: '/groups/:name/stop-selling',
    access: 'admin',
    handler: (ctx) =>
      changeGroup(ctx, 'stopped', (group) =>
        ctx.resolve(TOKENS.catalogueService).stopSelling(group.name, field(ctx.form, 'tld')),
      ),
  },
  {
    method: 'post',
    path: '/groups/:name/addons',
    access: 'admin',
    handler: (ctx) =>
      changeGroup(ctx, 'addons', async (group) => {
        const prices: Partial<Record<(typeof ADDONS)[number], Minor>> = {};
        for (const addon of ADDONS) {
          const text = field(ctx.form, addon).trim();
          if (text) prices[addon] = parseAmount(text, `${addon} price`);
        }
        await ctx.resolve(TOKENS.catalogueService).setAddonPrices(group.name, prices);
      }),
  },
  {
    method: 'post',
    path: '/groups/:name/premium',
    access: 'admin',
    handler: (ctx) =>
      changeGroup(ctx, 'premium', (group) =>
        ctx.resolve(TOKENS.catalogueService).setPremiumRule(group.name, premiumRuleOf(ctx.form)),
      ),
  },
  {
    method: 'post',
    path: '/groups/:name/contact',
    access: 'admin',
    handler: (ctx) =>
      changeGroup(ctx, 'contact', async (group) => {
        const contact: Record<string, string> = {};
        // The default-contact form offers the fields every contact role is shown with.
        for (const name of STANDARD_CONTACT_FIELDS) {
          const value = field(ctx.form, name).trim();
          if (value) contact[name] = value;
        }
        const cleared = Object.keys(contact).length === 0;
        await ctx.resolve(TOKENS.resellerService).setDefaultContact(group.name, cleared ? null : contact);
      }),
  },
  {
    method: 'post',
    path: '/groups/:name/import-costs',
    access: 'admin',
    handler: async (ctx) => {
      const group = await groupOf(ctx);
      const importer = ctx.resolve(TOKENS.costPriceImport);
      const apply = field(ctx.form, 'apply') === '1';
      let plan: Awaited<ReturnType<typeof importer.run>>;
      try {
        // Planned and, when applying, written in one transaction with the same checks either way;
        // each TLD it sets is audited with its prices before and after, in that transaction.
        plan = await importer.run(importInput(group, ctx.form), { dryRun: !apply });
      } catch (error) {
        if (isDomainError(error) && (error.code === 'validation_failed' || error.code === 'conflict'))
          return groupPage(ctx, group, { importError: error.message }, error.code === 'conflict' ? 409 : 400);
        throw error;
      }
      return ctx.render('import-costs', {
        pageTitle: `Cost import for ${group.name}`,
        group,
        plan,
        applied: apply,
        form: ctx.form,
      });
    },
  },
];

const NOTICES: Record<string, string> = {
  prices: 'The prices are saved: the API answers them from now on.',
  stopped: 'The group no longer sells the TLD (renewals of its domains still work).',
  addons: 'The add-on prices are saved.',
  premium: 'The premium rule is saved.',
  contact: 'The default contact is saved.',
};
