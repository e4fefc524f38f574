import { isDomainError } from '../../core/common/errors';
import type { DomainRecord } from '../../core/domain/domain';
import type { DnsRecordInput } from '../../core/domain/dns-records';
import { DNS_RECORD_TYPES } from '../../core/domain/dns-records';
import { STANDARD_CONTACT_FIELDS } from '../../core/domain/contact-fields';
import { CONTACT_ROLES, type ContactRole } from '../../core/registrar/plugin';
import { STATUS } from '../../http/error-status';
import type { Fields, PageResult } from '../page-table';
import { field } from '../web-app';
import { AUDITED, management, ownedDomain, resellerOf } from './owned-domain';
import type { PortalContext, PortalPage } from './portal-access';

/** Blank rows a form offers beyond what the domain has, for new records or forwards. */
const BLANK_ROWS = 3;

/**
 * The settings of one domain that live at its registrar (DNS records, email forwarding, contacts),
 * each on a page of its own so the domain page itself asks the registrar nothing. They go through
 * the same domain-management service as the API (docs/api.md#domains): the ownership rule first
 * (another reseller's domain answers like one nobody holds), then an open order is a 409, a priced
 * add-on the domain was not ordered with is refused naming its price, and a registrar without the
 * capability says so. A refusal shows the form again with what was typed and the reason.
 */
export const DOMAIN_SETTINGS_PAGES: readonly PortalPage[] = [
  {
    method: 'get',
    path: '/domains/:domain/dns',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      return showFromRegistrar(ctx, 'domain-dns', domain, async () => {
        const records = await management(ctx).dnsRecords(resellerOf(ctx), domain.name);
        return { rows: [...records, ...blankRecords()] };
      });
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/dns',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      const rows = dnsRowsOf(ctx.form);
      return saveOrShowAgain(ctx, 'domain-dns', domain, { rows: [...rows, ...blankRecords()] }, async () => {
        // Rows left blank are blank form rows, not records (the API leaves out records without an address too).
        const records = rows.filter((r) => (r.hostname ?? '') !== '' || (r.address ?? '') !== '');
        await management(ctx).saveDnsRecords(resellerOf(ctx), domain.name, records, AUDITED);
        return 'dns';
      });
    },
  },
  {
    method: 'get',
    path: '/domains/:domain/email-forwarding',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      return showFromRegistrar(ctx, 'domain-email', domain, async () => {
        const forwards = await management(ctx).emailForwards(resellerOf(ctx), domain.name);
        return { rows: [...forwards, ...blankForwards()] };
      });
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/email-forwarding',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      const prefixes = list(ctx.form, 'prefix');
      const targets = list(ctx.form, 'forwardto');
      const rows = prefixes.map((prefix, i) => ({ prefix, forwardTo: targets[i] ?? '' }));
      return saveOrShowAgain(ctx, 'domain-email', domain, { rows: [...rows, ...blankForwards()] }, async () => {
        await management(ctx).saveEmailForwards(resellerOf(ctx), domain.name, prefixes, targets, AUDITED);
        return 'email';
      });
    },
  },
  {
    method: 'get',
    path: '/domains/:domain/contacts',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      return showFromRegistrar(ctx, 'domain-contacts', domain, async () => ({
        contacts: await management(ctx).contacts(resellerOf(ctx), domain.name),
      }));
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/contacts',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      const contacts = contactsOf(ctx.form);
      return saveOrShowAgain(ctx, 'domain-contacts', domain, { contacts }, async () => {
        await management(ctx).saveContacts(resellerOf(ctx), domain.name, contacts, AUDITED);
        return 'contacts';
      });
    },
  },
];

const SETTINGS = {
  'domain-dns': { pageTitle: 'DNS records', capability: 'DNS management' },
  'domain-email': { pageTitle: 'Email forwarding', capability: 'email forwarding' },
  'domain-contacts': { pageTitle: 'Contacts', capability: 'contact management' },
} as const;
type SettingsTemplate = keyof typeof SETTINGS;

const NOTICES: Record<string, string> = {
  dns: 'The DNS records are saved.',
  email: 'The email forwards are saved.',
  contacts: 'The contacts are saved.',
};

/** The ownership rule before anything else is read from the request. */

function render(
  ctx: PortalContext,
  template: SettingsTemplate,
  domain: DomainRecord,
  values: Record<string, unknown>,
  status = 200,
): PageResult {
  return ctx.render(
    template,
    {
      ...SETTINGS[template],
      pageTitle: `${SETTINGS[template].pageTitle}: ${domain.unicodeName}`,
      heading: SETTINGS[template].pageTitle,
      domain,
      action: `/domains/${encodeURIComponent(domain.name)}/${pathOf(template)}`,
      notice: NOTICES[field(ctx.query, 'notice')],
      recordTypes: DNS_RECORD_TYPES,
      roles: CONTACT_ROLES,
      contactFields: STANDARD_CONTACT_FIELDS,
      ...values,
    },
    { status },
  );
}

/**
 * A settings page read from the registrar. A domain in the middle of an order, gone from the
 * platform, or whose registrar lacks the capability shows why instead of a form.
 */
async function showFromRegistrar(
  ctx: PortalContext,
  template: SettingsTemplate,
  domain: DomainRecord,
  read: () => Promise<Record<string, unknown>>,
): Promise<PageResult> {
  try {
    return render(ctx, template, domain, await read());
  } catch (error) {
    if (!isDomainError(error) || error.code === 'not_owned') throw error;
    return render(
      ctx,
      template,
      domain,
      { unavailable: explain(error.code, template, error.message) },
      STATUS[error.code],
    );
  }
}

/** Saves, then back to the page with a notice (303); a refusal shows the form again with the reason and its status. */
async function saveOrShowAgain(
  ctx: PortalContext,
  template: SettingsTemplate,
  domain: DomainRecord,
  typed: Record<string, unknown>,
  save: () => Promise<string>,
): Promise<PageResult> {
  try {
    const notice = await save();
    return ctx.redirect(`/domains/${encodeURIComponent(domain.name)}/${pathOf(template)}?notice=${notice}`);
  } catch (error) {
    if (!isDomainError(error) || error.code === 'not_owned') throw error;
    return render(
      ctx,
      template,
      domain,
      { ...typed, error: explain(error.code, template, error.message) },
      STATUS[error.code],
    );
  }
}

const pathOf = (template: SettingsTemplate) =>
  template === 'domain-dns' ? 'dns' : template === 'domain-email' ? 'email-forwarding' : 'contacts';

function explain(code: string, template: SettingsTemplate, message: string): string {
  if (code === 'capability_missing')
    return `The registrar of this domain does not offer ${SETTINGS[template].capability}, so it cannot be changed here. (${message})`;
  return message;
}

function list(fields: Fields, name: string): string[] {
  const value = fields[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The DNS form's rows: the repeated fields hostname, type, address and priority, in the order of the form. */
function dnsRowsOf(form: Fields): DnsRecordInput[] {
  const hostnames = list(form, 'hostname');
  const types = list(form, 'type');
  const addresses = list(form, 'address');
  const priorities = list(form, 'priority');
  const count = Math.max(hostnames.length, types.length, addresses.length, priorities.length);
  return Array.from({ length: count }, (_, i) => ({
    hostname: (hostnames[i] ?? '').trim(),
    type: (types[i] ?? '').trim(),
    address: (addresses[i] ?? '').trim(),
    priority: (priorities[i] ?? '').trim(),
  }));
}

/** The contacts form: `<role>.<field>` for each role; a role left wholly blank is not sent. */
function contactsOf(form: Fields): Partial<Record<ContactRole, Record<string, string>>> {
  const contacts: Partial<Record<ContactRole, Record<string, string>>> = {};
  for (const role of CONTACT_ROLES) {
    const contact: Record<string, string> = {};
    for (const name of STANDARD_CONTACT_FIELDS) contact[name] = field(form, `${role}.${name}`);
    if (role === 'registrant' || Object.values(contact).some((v) => v.trim() !== '')) contacts[role] = contact;
  }
  return contacts;
}

const blankRecords = () =>
  Array.from({ length: BLANK_ROWS }, () => ({ hostname: '', type: 'A', address: '', priority: '' }));
const blankForwards = () => Array.from({ length: BLANK_ROWS }, () => ({ prefix: '', forwardTo: '' }));
