import { z } from 'zod';
import type { Accepted } from '../../core/registrar/registrar-gateway';
import type { DomainManagementService } from '../../core/domain/domain-management-service';
import { TOKENS } from '../../core/tokens';
import { route, type Route } from '../route-table';
import {
  ContactDetails,
  DnsRecords,
  EmailForwards,
  EppCode,
  Information,
  LockState,
  Nameservers,
  Success,
  SyncResult,
  TransferSyncResult,
  accepted,
} from '../wire/reply-schemas';
import {
  dnsRecordsFromWire,
  dnsRecordsReply,
  emailForwardsReply,
  informationReply,
  mapInput,
  mapped,
  nameserversOfParams,
  nameserversReply,
  successReply,
  syncReply,
  textList,
  transferSyncReply,
} from '../wire/domain-wire';
import { contactsFromWire, contactsReply } from '../wire/contact-wire';
import { domainField, text } from '../wire/schemas';

/** Every route here carries `{domain}`; the service proves ownership before anything else (docs/api.md#domains: 409, no leak). */
const onDomain = <Shape extends z.ZodRawShape = Record<never, never>>(shape?: Shape) =>
  z.object({ domain: domainField, ...(shape as Shape) });

/**
 * docs/api.md#registrar-lock: `locked`/`unlocked`, and the boolean spellings billing modules send instead
 * (`1`/`0`, `true`/`false`, `on`/`off`), in any letter case. Anything else, a list or none is a
 * 400: a module that cannot lock must hear so rather than have its domain unlocked.
 */
const LOCK_VALUES: Record<string, boolean> = {
  locked: true,
  unlocked: false,
  '1': true,
  '0': false,
  true: true,
  false: false,
  on: true,
  off: false,
};
const lockStatus = z
  .string({
    error: (issue) =>
      issue.input === undefined ? 'lockstatus is required' : 'lockstatus must be a single value, like locked',
  })
  .refine(
    (v) => Object.hasOwn(LOCK_VALUES, v.trim().toLowerCase()),
    'lockstatus must be locked or unlocked (or 1/0, true/false, on/off)',
  )
  .transform((v) => LOCK_VALUES[v.trim().toLowerCase()] === true)
  .meta({
    description: 'locked (also 1, true, on) locks the domain; unlocked (also 0, false, off) unlocks it; any case',
    enum: Object.keys(LOCK_VALUES),
    examples: ['locked'],
  });

/** docs/api.md#id-protection: 1 enables, 0 disables, anything else is a 400. */
const idProtectionStatus = z
  .unknown()
  .refine((v) => v === '1' || v === '0', 'status must be 1 (enable ID protection) or 0 (disable it)')
  .transform((v) => v === '1')
  .meta({ type: 'string', enum: ['1', '0'], description: '1 enables ID protection, 0 disables it' });

const optionalWire = z.unknown().optional();
const nameserverWire = z
  .unknown()
  .optional()
  .meta({ type: 'string', description: 'A nameserver host name; ns1 and ns2 are required' });

const DnsRecordWire = {
  type: 'object',
  properties: {
    hostname: { type: 'string' },
    type: { type: 'string' },
    address: { type: 'string' },
    priority: { type: 'string' },
    recid: { type: 'string' },
  },
};
const dnsRecordsWire = mapped(dnsRecordsFromWire).meta({
  description:
    'One record (dnsrecords[hostname]=…) or a list (dnsrecords[0][hostname]=…); priority may be N/A or empty; absent saves an empty zone',
  anyOf: [
    DnsRecordWire,
    { type: 'array', items: DnsRecordWire },
    { type: 'object', additionalProperties: DnsRecordWire },
  ],
});
const contactDetailsWire = mapped(contactsFromWire).meta({
  description:
    'Contacts by role (Registrant, Admin, Tech or Technical, Billing), each with fields by the billing platform\'s names ("First Name", "Email Address", …) or lower-case ones (firstname, email, …): contactdetails[Registrant][First Name]=Ada',
  type: 'object',
  additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
});
const listWire = (field: string, what: string) =>
  textList(field).meta({
    description: `${what}: a list as prefix[]=…, prefix[0]=… or repeated names, in the same order as the other list`,
    anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }],
  });

type Domains = DomainManagementService;

interface DomainRoute<Schema extends z.ZodType<{ domain: string }>> {
  readonly method: 'get' | 'post';
  readonly path: string;
  readonly summary: string;
  readonly input: Schema;
  readonly output: z.ZodType;
  /** The reply body, from one call of the domain management service with the reseller's id and the validated input. */
  readonly answer: (domains: Domains, resellerId: string, input: z.infer<Schema>) => Promise<unknown>;
}

/** A route here: reseller access, and the reply from the domain management service (which proves ownership first). */
function domainRoute<Schema extends z.ZodType<{ domain: string }>>({
  answer,
  ...definition
}: DomainRoute<Schema>): Route<Schema> {
  return route({
    ...definition,
    access: 'reseller',
    handler: async ({ input, reseller, resolve }) =>
      answer(resolve(TOKENS.domainManagementService), reseller.id, input),
  });
}

/** Only the domain, as the path has it. */
type DomainOnly = ReturnType<typeof onDomain>;

/** A GET: only the domain in, the service's answer out in wire form. */
function reads({
  answer,
  ...definition
}: Omit<DomainRoute<DomainOnly>, 'method' | 'input' | 'answer'> & {
  readonly answer: (domains: Domains, resellerId: string, domain: string) => Promise<unknown>;
}): Route<DomainOnly> {
  return domainRoute({
    ...definition,
    method: 'get',
    input: onDomain(),
    answer: (domains, resellerId, input) => answer(domains, resellerId, input.domain),
  });
}

/** A POST that changes the domain and replies "success" once the service has taken the change (done or pending alike). */
function saves<Schema extends z.ZodType<{ domain: string }>>(
  definition: Omit<DomainRoute<Schema>, 'method' | 'output'>,
): Route<Schema> {
  const { answer } = definition;
  return domainRoute({
    ...definition,
    method: 'post',
    output: Success,
    answer: async (...call) => {
      await answer(...call);
      return 'success';
    },
  });
}

/**
 * A POST whose reply says whether the registrar has done the change or only accepted it
 * ({success: true, pending: true}), with fields of its own (`extra`) beside.
 */
function accepts<
  Schema extends z.ZodType<{ domain: string }>,
  Extra extends z.ZodRawShape = Record<never, never>,
>(definition: {
  readonly path: string;
  readonly summary: string;
  readonly input: Schema;
  /** The reply's own fields, as schemas. */
  readonly extra?: Extra;
  /** The change, as the service takes it. */
  readonly answer: (domains: Domains, resellerId: string, input: z.infer<Schema>) => Promise<Accepted>;
  /** The reply's own fields, from the input. */
  readonly reply?: (input: z.infer<Schema>) => Record<string, unknown>;
}): Route<Schema> {
  const { path, summary, input, extra, answer, reply } = definition;
  return domainRoute({
    method: 'post',
    path,
    summary,
    input,
    output: accepted(extra),
    answer: async (domains, resellerId, params) =>
      successReply((await answer(domains, resellerId, params)).pending, reply?.(params)),
  });
}

export const domainRoutes = [
  reads({
    path: '/domains/:domain/information',
    summary:
      'Domain information; assembled from nameservers, lock and the platform record when the registrar has no information call',
    output: Information,
    answer: async (domains, resellerId, domain) => {
      const { domain: record, information } = await domains.information(resellerId, domain);
      return informationReply(record, information);
    },
  }),
  reads({
    path: '/domains/:domain/dns',
    summary: 'The DNS records, as a list of {hostname, type, address, priority, recid}',
    output: DnsRecords,
    answer: async (domains, resellerId, domain) => dnsRecordsReply(await domains.dnsRecords(resellerId, domain)),
  }),
  accepts({
    path: '/domains/:domain/dns',
    summary: 'Saves the DNS records: one record or a list; records with an empty address are left out',
    input: onDomain({ dnsrecords: dnsRecordsWire }),
    answer: (domains, resellerId, input) => domains.saveDnsRecords(resellerId, input.domain, input.dnsrecords),
  }),
  domainRoute({
    method: 'post',
    path: '/domains/:domain/transfersync',
    summary: 'Transfer sync: {completed, failed, reason, expirydate}',
    input: onDomain(),
    output: TransferSyncResult,
    answer: async (domains, resellerId, { domain }) =>
      transferSyncReply(await domains.transferSync(resellerId, domain)),
  }),
  domainRoute({
    method: 'post',
    path: '/domains/:domain/sync',
    summary: 'Domain sync: {active, expired, transferredAway, cancelled, expirydate}',
    input: onDomain(),
    output: SyncResult,
    answer: async (domains, resellerId, { domain }) => syncReply((await domains.sync(resellerId, domain)).view),
  }),
  reads({
    path: '/domains/:domain/nameservers',
    summary: 'The nameservers as {ns1 … ns5}, unset ones empty',
    output: Nameservers,
    answer: async (domains, resellerId, domain) => nameserversReply(await domains.nameservers(resellerId, domain)),
  }),
  saves({
    path: '/domains/:domain/nameservers',
    summary: 'Saves ns1 … ns5 (ns1 and ns2 required)',
    input: mapInput(
      z.looseObject({
        domain: domainField,
        ns1: nameserverWire,
        ns2: nameserverWire,
        ns3: nameserverWire,
        ns4: nameserverWire,
        ns5: nameserverWire,
        nameservers: optionalWire.meta({
          description: 'Instead of ns1…ns5: nameservers[ns1]=… or nameservers[0]=…',
          anyOf: [
            { type: 'array', items: { type: 'string' } },
            { type: 'object', additionalProperties: { type: 'string' } },
          ],
        }),
      }),
      (params) => ({ domain: params.domain, nameservers: nameserversOfParams(params as never) }),
    ),
    answer: (domains, resellerId, input) => domains.saveNameservers(resellerId, input.domain, input.nameservers),
  }),
  saves({
    path: '/domains/:domain/nameservers/register',
    summary: 'Registers a child nameserver (a host under the domain) with its IP address',
    input: onDomain({ nameserver: text('nameserver'), ipaddress: text('ipaddress') }),
    answer: (domains, resellerId, input) =>
      domains.registerChildHost(resellerId, input.domain, input.nameserver, input.ipaddress),
  }),
  saves({
    path: '/domains/:domain/nameservers/modify',
    summary: "Changes a child nameserver's IP address",
    input: onDomain({
      nameserver: text('nameserver'),
      currentipaddress: text('currentipaddress'),
      newipaddress: text('newipaddress'),
    }),
    answer: (domains, resellerId, input) =>
      domains.modifyChildHost(resellerId, input.domain, input.nameserver, input.currentipaddress, input.newipaddress),
  }),
  saves({
    path: '/domains/:domain/nameservers/delete',
    summary: 'Deletes a child nameserver',
    input: onDomain({ nameserver: text('nameserver') }),
    answer: (domains, resellerId, input) => domains.deleteChildHost(resellerId, input.domain, input.nameserver),
  }),
  reads({
    path: '/domains/:domain/lock',
    summary: 'The registrar lock as "locked" or "unlocked"',
    output: LockState,
    answer: async (domains, resellerId, domain) => ((await domains.lock(resellerId, domain)) ? 'locked' : 'unlocked'),
  }),
  accepts({
    path: '/domains/:domain/lock',
    summary: 'Sets the registrar lock: lockstatus=locked or unlocked (or 1/0, true/false, on/off)',
    input: onDomain({ lockstatus: lockStatus }),
    extra: { lockstatus: LockState },
    answer: (domains, resellerId, input) => domains.saveLock(resellerId, input.domain, input.lockstatus),
    reply: (input) => ({ lockstatus: input.lockstatus ? 'locked' : 'unlocked' }),
  }),
  accepts({
    path: '/domains/:domain/protectid',
    summary: 'ID protection: status=1 enables, status=0 disables',
    input: onDomain({ status: idProtectionStatus }),
    extra: { idprotection: z.boolean() },
    answer: (domains, resellerId, input) => domains.saveIdProtection(resellerId, input.domain, input.status),
    reply: (input) => ({ idprotection: input.status }),
  }),
  accepts({
    path: '/domains/:domain/delete',
    summary: 'Requests deletion; on success the domain is Cancelled',
    input: onDomain(),
    extra: { status: z.literal('Cancelled') },
    answer: (domains, resellerId, input) => domains.delete(resellerId, input.domain),
    reply: () => ({ status: 'Cancelled' }),
  }),
  reads({
    path: '/domains/:domain/eppcode',
    summary: 'The EPP (transfer) code as {eppcode}',
    output: EppCode,
    answer: async (domains, resellerId, domain) => ({ eppcode: await domains.eppCode(resellerId, domain) }),
  }),
  reads({
    path: '/domains/:domain/contact',
    summary: 'Contact details by role (Registrant, Admin, Technical, Billing) with display field names',
    output: ContactDetails,
    answer: async (domains, resellerId, domain) => contactsReply(await domains.contacts(resellerId, domain)),
  }),
  saves({
    path: '/domains/:domain/contact',
    summary: 'Saves contact details sent as contactdetails[Registrant][First Name]=…',
    input: onDomain({ contactdetails: contactDetailsWire }),
    answer: (domains, resellerId, input) => domains.saveContacts(resellerId, input.domain, input.contactdetails),
  }),
  reads({
    path: '/domains/:domain/email',
    summary: 'Email forwards as a list of {prefix, forwardto}',
    output: EmailForwards,
    answer: async (domains, resellerId, domain) => emailForwardsReply(await domains.emailForwards(resellerId, domain)),
  }),
  saves({
    path: '/domains/:domain/email',
    summary: 'Saves email forwards from prefix[] and forwardto[]; none clears them',
    input: onDomain({
      prefix: listWire('prefix', 'The mailbox names (before the @)'),
      forwardto: listWire('forwardto', 'The addresses to forward to'),
    }),
    answer: (domains, resellerId, input) =>
      domains.saveEmailForwards(resellerId, input.domain, input.prefix, input.forwardto),
  }),
  saves({
    path: '/domains/:domain/release',
    summary: 'Releases the domain to the registrar named by transfertag; it is then Transferred Away',
    input: onDomain({ transfertag: text('transfertag') }),
    answer: (domains, resellerId, input) => domains.release(resellerId, input.domain, input.transfertag),
  }),
];
