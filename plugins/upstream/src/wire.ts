/**
 * The upstream API's reply shapes (read through the client SDK) turned into the plugin
 * contract's answers. Upstream answers are not trusted to be exactly ours: the deployed product
 * this API describes writes some values its own way, so each mapping reads leniently and leaves
 * out what it cannot read (the platform checks every answer again).
 */
import type {
  ContactDetails,
  DnsRecordReply,
  DomainInformationReply,
  DomainSuggestion,
  ClientTldPricingRow,
} from 'domain-reseller/client';
import type {
  AvailabilityResult,
  Contact,
  ContactRole,
  Contacts,
  DnsRecord,
  DomainInformation,
  TldPriceOffer,
} from 'domain-reseller';

/** `2027-11-21`, `2027-11-21T00:00:00Z` or `2027-11-21 00:00:00` → `2027-11-21`; anything else → undefined. */
export function dateOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/.exec(value.trim());
  return match?.[1];
}

/** Statuses the upstream gives a registration or transfer it has accepted but not finished. */
export const isPendingStatus = (status: string | undefined): boolean => status !== undefined && /pending/i.test(status);

/** A decimal amount of the API (`"10.00"`) in minor units; undefined when it is not one. */
export function minorUnits(value: unknown): number | undefined {
  const text = typeof value === 'number' ? value.toFixed(2) : value;
  if (typeof text !== 'string') return undefined;
  const match = /^(\d{1,9})(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

const EXTRA_KEYS = [
  'transferLockExpiryDate',
  'irtpOptOutStatus',
  'irtpTransferLock',
  'irtpTransferLockExpiryDate',
  'domainContactChangePending',
  'domainContactChangeExpiryDate',
  'willDomainSuspend',
  'isIrtpEnabled',
  'irtpVerificationTriggerFields',
  'renewBeforeExpiration',
] as const;

const bool = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

/** Domain information as the upstream wrote it → the contract's (docs/api.md#domain-information; extras kept in `extra`). */
export function informationFrom(reply: DomainInformationReply): DomainInformation {
  const raw = reply as unknown as Record<string, unknown>;
  const extra = Object.fromEntries(
    EXTRA_KEYS.filter((k) => raw[k] !== undefined && raw[k] !== null && raw[k] !== '').map((k) => [k, raw[k]]),
  );
  const status =
    typeof reply.registrationStatus === 'string' && reply.registrationStatus !== ''
      ? reply.registrationStatus
      : reply.status;
  const info: Record<string, unknown> = {
    nameservers: reply.nameservers.filter((ns) => ns.trim() !== ''),
    transferLock: bool(reply.transferLock),
    expiryDate: dateOf(reply.expiryDate),
    registrationStatus: status,
    idProtection: bool(reply.idProtectionStatus),
    dnsManagement: bool(reply.dnsManagementStatus),
    emailForwarding: bool(reply.emailForwardingStatus),
    restorable: bool(reply.restorable),
    registrantEmail:
      typeof reply.registrantEmailAddress === 'string' && reply.registrantEmailAddress !== ''
        ? reply.registrantEmailAddress
        : undefined,
    extra: Object.keys(extra).length > 0 ? extra : undefined,
  };
  return Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as unknown as DomainInformation;
}

const ROLES: Record<string, ContactRole> = {
  registrant: 'registrant',
  admin: 'admin',
  tech: 'tech',
  technical: 'tech',
  billing: 'billing',
};

/** Field names as billing platforms display them, or ours, folded (lower case, no spaces, `_` or `-`). */
const FIELDS: Record<string, string> = {
  firstname: 'firstname',
  lastname: 'lastname',
  fullname: 'fullname',
  companyname: 'companyname',
  company: 'companyname',
  email: 'email',
  emailaddress: 'email',
  address1: 'address1',
  address2: 'address2',
  city: 'city',
  state: 'state',
  region: 'state',
  postcode: 'postcode',
  zipcode: 'postcode',
  country: 'country',
  phonenumber: 'phonenumber',
  phone: 'phonenumber',
  taxid: 'tax_id',
};

/** Contact details by the upstream's role and field display names (`Registrant` → `First Name`) → the contract's. Unknown roles and fields are left out. */
export function contactsFrom(reply: ContactDetails): Contacts {
  const contacts: Partial<Record<ContactRole, Contact>> = {};
  for (const [roleKey, fields] of Object.entries(reply)) {
    const role = ROLES[roleKey.toLowerCase()];
    if (!role) continue;
    const contact: Record<string, string> = {};
    for (const [key, value] of Object.entries(fields)) {
      const field = FIELDS[key.toLowerCase().replace(/[\s_-]+/g, '')];
      if (field && typeof value === 'string') contact[field] = value;
    }
    contacts[role] = contact;
  }
  return contacts;
}

/** Billing platforms write `N/A` or nothing for a record type without a priority. */
export function dnsRecordsFrom(reply: readonly DnsRecordReply[]): DnsRecord[] {
  return reply.map((r) => {
    const priority = r.priority === undefined || r.priority === null ? '' : String(r.priority).trim();
    return {
      hostname: r.hostname,
      type: r.type,
      address: r.address,
      ...(priority !== '' && !/^n\/?a$/i.test(priority) ? { priority } : {}),
      ...(r.recid !== undefined && r.recid !== null && String(r.recid) !== '' ? { recid: String(r.recid) } : {}),
    };
  });
}

const STATUSES: Record<string, AvailabilityResult['status']> = {
  'available for registration': 'available',
  registered: 'registered',
  reserved: 'reserved',
};

/** One element of `POST /domains/lookup` → an availability answer. A premium price is kept only when the upstream gives one. */
export function availabilityFrom(element: DomainSuggestion): AvailabilityResult {
  const domain = element.domainName.toLowerCase();
  const status = STATUSES[String(element.status).toLowerCase()] ?? 'unknown';
  if (status !== 'available' || element.isPremium !== true) return { domain, status };
  const cost = element.premiumCostPricing as unknown;
  const prices =
    typeof cost === 'object' && cost !== null && !Array.isArray(cost) ? (cost as Record<string, unknown>) : {};
  const register = minorUnits(prices.register);
  // A premium name without a price cannot be sold at a known price: not offered as available.
  if (register === undefined) return { domain, status: 'reserved' };
  const renew = minorUnits(prices.renew);
  const transfer = minorUnits(prices.transfer);
  return {
    domain,
    status,
    isPremium: true,
    premiumPrice: {
      register,
      ...(renew !== undefined ? { renew } : {}),
      ...(transfer !== undefined ? { transfer } : {}),
    },
  };
}

/** `GET /tlds/pricing` rows → price offers in minor units; a row that cannot be read is left out. */
export function pricesFrom(rows: readonly ClientTldPricingRow[]): TldPriceOffer[] {
  const offers: TldPriceOffer[] = [];
  for (const row of rows) {
    const tld = `.${String(row.tld).replace(/^\.+/, '').toLowerCase()}`;
    if (!/^\.[a-z0-9.-]{1,63}$/.test(tld) || !Number.isInteger(row.years) || row.years < 1 || row.years > 10) continue;
    const offer: { -readonly [K in keyof TldPriceOffer]: TldPriceOffer[K] } = { tld, period: row.years };
    const register = minorUnits(row.registrationPrice);
    const renew = minorUnits(row.renewalPrice);
    const transfer = minorUnits(row.transferPrice);
    if (register !== undefined) offer.register = register;
    if (renew !== undefined) offer.renew = renew;
    if (transfer !== undefined) offer.transfer = transfer;
    offers.push(offer);
  }
  return offers;
}
