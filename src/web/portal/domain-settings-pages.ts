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

/** Where a setting's page is, and its words. */
interface SettingPage {
  /** The page's path under the domain: `/domains/<domain>/<path>`. */
  readonly path: string;
  readonly template: string;
  readonly pageTitle: string;
  /** The capability's name in "the registrar of this domain does not offer …". */
  readonly capability: string;
  /** The `?notice=` key after a save, and what it says. */
  readonly saved: readonly [key: string, text: string];
}

/**
 * A setting of one domain that lives at its registrar, on a page of its own (GET shows it, POST
 * saves it): where it is, its template and words, how it is read from the registrar, what the form
 * sent, and how that is saved and audited.
 */
interface RegistrarSetting<Sent> extends SettingPage {
  read(ctx: PortalContext, domain: DomainRecord): Promise<Record<string, unknown>>;
  sent(form: Fields): Sent;
  /** The form shown again after a refusal, with what was sent. */
  shownAgain(sent: Sent): Record<string, unknown>;
  /** Saves through the domain-management service, which audits the change (AUDITED). */
  save(ctx: PortalContext, domain: DomainRecord, sent: Sent): Promise<void>;
}

const DNS: RegistrarSetting<DnsRecordInput[]> = {
  path: 'dns',
  template: 'domain-dns',
  pageTitle: 'DNS records',
  capability: 'DNS management',
  saved: ['dns', 'The DNS records are saved.'],
  read: async (ctx, domain) => ({
    rows: [...(await management(ctx).dnsRecords(resellerOf(ctx), domain.name)), ...blankRecords()],
  }),
  sent: dnsRowsOf,
  shownAgain: (rows) => ({ rows: [...rows, ...blankRecords()] }),
  save: async (ctx, domain, rows) => {
    // Rows left blank are blank form rows, not records (the API leaves out records without an address too).
    const records = rows.filter((r) => (r.hostname ?? '') !== '' || (r.address ?? '') !== '');
    await management(ctx).saveDnsRecords(resellerOf(ctx), domain.name, records, AUDITED);
  },
};

const EMAIL_FORWARDING: RegistrarSetting<{ prefixes: string[]; targets: string[] }> = {
  path: 'email-forwarding',
  template: 'domain-email',
  pageTitle: 'Email forwarding',
  capability: 'email forwarding',
  saved: ['email', 'The email forwards are saved.'],
  read: async (ctx, domain) => ({
    rows: [...(await management(ctx).emailForwards(resellerOf(ctx), domain.name)), ...blankForwards()],
  }),
  sent: (form) => ({ prefixes: list(form, 'prefix'), targets: list(form, 'forwardto') }),
  shownAgain: (sent) => ({ rows: [...forwardRows(sent), ...blankForwards()] }),
  save: async (ctx, domain, sent) => {
    await management(ctx).saveEmailForwards(resellerOf(ctx), domain.name, sent.prefixes, sent.targets, AUDITED);
  },
};

const CONTACTS: RegistrarSetting<Partial<Record<ContactRole, Record<string, string>>>> = {
  path: 'contacts',
  template: 'domain-contacts',
  pageTitle: 'Contacts',
  capability: 'contact management',
  saved: ['contacts', 'The contacts are saved.'],
  read: async (ctx, domain) => ({ contacts: await management(ctx).contacts(resellerOf(ctx), domain.name) }),
  sent: contactsOf,
  shownAgain: (contacts) => ({ contacts }),
  save: async (ctx, domain, contacts) => {
    await management(ctx).saveContacts(resellerOf(ctx), domain.name, contacts, AUDITED);
  },
};

/**
 * The settings of one domain that live at its registrar (DNS records, email forwarding, contacts),
 * each on a page of its own so the domain page itself asks the registrar nothing. They go through
 * the same domain-management service as the API (docs/api.md#domains): the ownership rule first
 * (another reseller's domain answers like one nobody holds), then an open order is a 409, a priced
 * add-on the domain was not ordered with is refused naming its price, and a registrar without the
 * capability says so. A refusal shows the form again with what was typed and the reason.
 */
export const DOMAIN_SETTINGS_PAGES: readonly PortalPage[] = [
  ...settingPages(DNS),
  ...settingPages(EMAIL_FORWARDING),
  ...settingPages(CONTACTS),
];

function settingPages<Sent>(setting: RegistrarSetting<Sent>): PortalPage[] {
  const path = `/domains/:domain/${setting.path}`;
  return [
    {
      method: 'get',
      path,
      access: 'reseller',
      handler: async (ctx) => {
        const domain = await ownedDomain(ctx);
        const show = async () => render(ctx, setting, domain, await setting.read(ctx, domain));
        return orRefusal(ctx, setting, domain, show, (reason) => ({ unavailable: reason }));
      },
    },
    {
      method: 'post',
      path,
      access: 'reseller',
      handler: async (ctx) => {
        const domain = await ownedDomain(ctx);
        const sent = setting.sent(ctx.form);
        const save = async () => {
          await setting.save(ctx, domain, sent);
          return ctx.redirect(`${pageOf(setting, domain)}?notice=${setting.saved[0]}`);
        };
        return orRefusal(ctx, setting, domain, save, (reason) => ({ ...setting.shownAgain(sent), error: reason }));
      },
    },
  ];
}

const pageOf = (setting: SettingPage, domain: DomainRecord) =>
  `/domains/${encodeURIComponent(domain.name)}/${setting.path}`;

function render(
  ctx: PortalContext,
  setting: SettingPage,
  domain: DomainRecord,
  values: Record<string, unknown>,
  status = 200,
): PageResult {
  return ctx.render(
    setting.template,
    {
      capability: setting.capability,
      pageTitle: `${setting.pageTitle}: ${domain.unicodeName}`,
      heading: setting.pageTitle,
      domain,
      action: pageOf(setting, domain),
      notice: field(ctx.query, 'notice') === setting.saved[0] ? setting.saved[1] : undefined,
      recordTypes: DNS_RECORD_TYPES,
      roles: CONTACT_ROLES,
      contactFields: STANDARD_CONTACT_FIELDS,
      ...values,
    },
    { status },
  );
}

/**
 * Runs a read or a save. A refusal of the domain-management service (a domain in the middle of an
 * order, gone from the platform, or whose registrar lacks the capability) shows the page instead,
 * with `shown(reason)` and the refusal's status; another reseller's domain still answers as the API does.
 */
async function orRefusal(
  ctx: PortalContext,
  setting: SettingPage,
  domain: DomainRecord,
  run: () => Promise<PageResult>,
  shown: (reason: string) => Record<string, unknown>,
): Promise<PageResult> {
  try {
    return await run();
  } catch (error) {
    if (!isDomainError(error) || error.code === 'not_owned') throw error;
    return render(ctx, setting, domain, shown(explain(error.code, setting, error.message)), STATUS[error.code]);
  }
}

function explain(code: string, setting: SettingPage, message: string): string {
  if (code === 'capability_missing')
    return `The registrar of this domain does not offer ${setting.capability}, so it cannot be changed here. (${message})`;
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

const forwardRows = ({ prefixes, targets }: { prefixes: string[]; targets: string[] }) =>
  prefixes.map((prefix, i) => ({ prefix, forwardTo: targets[i] ?? '' }));

const blankRecords = () =>
  Array.from({ length: BLANK_ROWS }, () => ({ hostname: '', type: 'A', address: '', priority: '' }));
const blankForwards = () => Array.from({ length: BLANK_ROWS }, () => ({ prefix: '', forwardTo: '' }));
