import { z } from 'zod';
import { TOKENS } from '../../core/tokens';
import { route } from '../route-table';
import {
  ContactDetails, DnsRecords, EmailForwards, EppCode, Information, LockState, Nameservers, Success, SyncResult, TransferSyncResult, accepted,
} from '../wire/reply-schemas';
import {
  contactsFromWire, contactsReply, dnsRecordsFromWire, dnsRecordsReply, emailForwardsReply, informationReply, mapInput, mapped,
  nameserversFromWire, nameserversReply, successReply, syncReply, textList, transferSyncReply,
} from '../wire/domain-wire';
import { domainField, text } from '../wire/schemas';

/** Every route here carries `{domain}`; the service proves ownership before anything else (decisions.md: 409, no leak). */
const onDomain = <Shape extends z.ZodRawShape = Record<never, never>>(shape?: Shape) => z.object({ domain: domainField, ...(shape as Shape) });

/** Spec 4.10: the value `locked` locks; any other value (or none) unlocks. */
const lockStatus = z.unknown().optional().transform((v) => typeof v === 'string' && v.trim().toLowerCase() === 'locked')
  .meta({ type: 'string', description: '"locked" locks the domain; any other value (or none) unlocks it', examples: ['locked'] });

/** Spec 4.11: 1 enables, 0 disables, anything else is a 400. */
const idProtectionStatus = z.unknown().refine((v) => v === '1' || v === '0', 'status must be 1 (enable ID protection) or 0 (disable it)').transform((v) => v === '1')
  .meta({ type: 'string', enum: ['1', '0'], description: '1 enables ID protection, 0 disables it' });

const optionalWire = z.unknown().optional();
const nameserverWire = z.unknown().optional().meta({ type: 'string', description: 'A nameserver host name; ns1 and ns2 are required' });

const DnsRecordWire = { type: 'object', properties: { hostname: { type: 'string' }, type: { type: 'string' }, address: { type: 'string' }, priority: { type: 'string' }, recid: { type: 'string' } } };
const dnsRecordsWire = mapped(dnsRecordsFromWire).meta({
  description: 'One record (dnsrecords[hostname]=…) or a list (dnsrecords[0][hostname]=…); priority may be N/A or empty; absent saves an empty zone',
  anyOf: [DnsRecordWire, { type: 'array', items: DnsRecordWire }, { type: 'object', additionalProperties: DnsRecordWire }],
});
const contactDetailsWire = mapped(contactsFromWire).meta({
  description: 'Contacts by role (Registrant, Admin, Tech or Technical, Billing), each with fields by the billing platform\'s names ("First Name", "Email Address", …) or lower-case ones (firstname, email, …): contactdetails[Registrant][First Name]=Ada',
  type: 'object', additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
});
const listWire = (field: string, what: string) => textList(field).meta({
  description: `${what}: a list as prefix[]=…, prefix[0]=… or repeated names, in the same order as the other list`,
  anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }],
});

export const domainRoutes = [
  route({
    method: 'get',
    path: '/domains/:domain/information',
    access: 'reseller',
    summary: 'Domain information (spec 4.4, 2.6); assembled from nameservers, lock and the platform record when the registrar has no information call',
    input: onDomain(),
    output: Information,
    handler: async ({ input, reseller, resolve }) => {
      const { domain, information } = await resolve(TOKENS.domainManagementService).information(reseller.id, input.domain);
      return informationReply(domain, information);
    },
  }),
  route({
    method: 'get',
    path: '/domains/:domain/dns',
    access: 'reseller',
    summary: 'The DNS records, as a list of {hostname, type, address, priority, recid} (decisions.md)',
    input: onDomain(),
    output: DnsRecords,
    handler: async ({ input, reseller, resolve }) => dnsRecordsReply(await resolve(TOKENS.domainManagementService).dnsRecords(reseller.id, input.domain)),
  }),
  route({
    method: 'post',
    path: '/domains/:domain/dns',
    access: 'reseller',
    summary: 'Saves the DNS records (spec 4.5): one record or a list; records with an empty address are left out',
    input: onDomain({ dnsrecords: dnsRecordsWire }),
    output: accepted(),
    handler: async ({ input, reseller, resolve }) => {
      const accepted = await resolve(TOKENS.domainManagementService).saveDnsRecords(reseller.id, input.domain, input.dnsrecords);
      return successReply(accepted.pending);
    },
  }),
  route({
    method: 'post',
    path: '/domains/:domain/transfersync',
    access: 'reseller',
    summary: 'Transfer sync (spec 4.6, 2.7): {completed, failed, reason, expirydate}',
    input: onDomain(),
    output: TransferSyncResult,
    handler: async ({ input, reseller, resolve }) => transferSyncReply(await resolve(TOKENS.domainManagementService).transferSync(reseller.id, input.domain)),
  }),
  route({
    method: 'post',
    path: '/domains/:domain/sync',
    access: 'reseller',
    summary: 'Domain sync (spec 4.7, 2.8): {active, expired, transferredAway, cancelled, expirydate}',
    input: onDomain(),
    output: SyncResult,
    handler: async ({ input, reseller, resolve }) => syncReply((await resolve(TOKENS.domainManagementService).sync(reseller.id, input.domain)).view),
  }),
  route({
    method: 'get',
    path: '/domains/:domain/nameservers',
    access: 'reseller',
    summary: 'The nameservers as {ns1 … ns5}, unset ones empty (spec 4.8)',
    input: onDomain(),
    output: Nameservers,
    handler: async ({ input, reseller, resolve }) => nameserversReply(await resolve(TOKENS.domainManagementService).nameservers(reseller.id, input.domain)),
  }),
  route({
    method: 'post',
    path: '/domains/:domain/nameservers',
    access: 'reseller',
    summary: 'Saves ns1 … ns5 (ns1 and ns2 required) (decisions.md)',
    input: mapInput(
      z.looseObject({
        domain: domainField, ns1: nameserverWire, ns2: nameserverWire, ns3: nameserverWire, ns4: nameserverWire, ns5: nameserverWire,
        nameservers: optionalWire.meta({ description: 'Instead of ns1…ns5: nameservers[ns1]=… or nameservers[0]=…', anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'object', additionalProperties: { type: 'string' } }] }),
      }),
      (params) => ({ domain: params.domain, nameservers: nameserversFromWire(params as never) }),
    ),
    output: Success,
    handler: async ({ input, reseller, resolve }) => {
      await resolve(TOKENS.domainManagementService).saveNameservers(reseller.id, input.domain, input.nameservers);
      return 'success';
    },
  }),
  route({
    method: 'post',
    path: '/domains/:domain/nameservers/register',
    access: 'reseller',
    summary: 'Registers a child nameserver (a host under the domain) with its IP address (decisions.md)',
    input: onDomain({ nameserver: text('nameserver'), ipaddress: text('ipaddress') }),
    output: Success,
    handler: async ({ input, reseller, resolve }) => {
      await resolve(TOKENS.domainManagementService).registerChildHost(reseller.id, input.domain, input.nameserver, input.ipaddress);
      return 'success';
    },
  }),
  route({
    method: 'post',
    path: '/domains/:domain/nameservers/modify',
    access: 'reseller',
    summary: "Changes a child nameserver's IP address (decisions.md)",
    input: onDomain({ nameserver: text('nameserver'), currentipaddress: text('currentipaddress'), newipaddress: text('newipaddress') }),
    output: Success,
    handler: async ({ input, reseller, resolve }) => {
      await resolve(TOKENS.domainManagementService).modifyChildHost(reseller.id, input.domain, input.nameserver, input.currentipaddress, input.newipaddress);
      return 'success';
    },
  }),
  route({
    method: 'post',
    path: '/domains/:domain/nameservers/delete',
    access: 'reseller',
    summary: 'Deletes a child nameserver (spec 4.9)',
    input: onDomain({ nameserver: text('nameserver') }),
    output: Success,
    handler: async ({ input, reseller, resolve }) => {
      await resolve(TOKENS.domainManagementService).deleteChildHost(reseller.id, input.domain, input.nameserver);
      return 'success';
    },
  }),
  route({
    method: 'get',
    path: '/domains/:domain/lock',
    access: 'reseller',
    summary: 'The registrar lock as "locked" or "unlocked" (decisions.md)',
    input: onDomain(),
    output: LockState,
    handler: async ({ input, reseller, resolve }) => ((await resolve(TOKENS.domainManagementService).lock(reseller.id, input.domain)) ? 'locked' : 'unlocked'),
  }),
  route({
    method: 'post',
    path: '/domains/:domain/lock',
    access: 'reseller',
    summary: 'Sets the registrar lock: lockstatus=locked locks, any other value unlocks (spec 4.10)',
    input: onDomain({ lockstatus: lockStatus }),
    output: accepted({ lockstatus: LockState }),
    handler: async ({ input, reseller, resolve }) => {
      const accepted = await resolve(TOKENS.domainManagementService).saveLock(reseller.id, input.domain, input.lockstatus);
      return successReply(accepted.pending, { lockstatus: input.lockstatus ? 'locked' : 'unlocked' });
    },
  }),
  route({
    method: 'post',
    path: '/domains/:domain/protectid',
    access: 'reseller',
    summary: 'ID protection: status=1 enables, status=0 disables (spec 4.11)',
    input: onDomain({ status: idProtectionStatus }),
    output: accepted({ idprotection: z.boolean() }),
    handler: async ({ input, reseller, resolve }) => {
      const accepted = await resolve(TOKENS.domainManagementService).saveIdProtection(reseller.id, input.domain, input.status);
      return successReply(accepted.pending, { idprotection: input.status });
    },
  }),
  route({
    method: 'post',
    path: '/domains/:domain/delete',
    access: 'reseller',
    summary: 'Requests deletion; on success the domain is Cancelled (spec 4.12, section 3)',
    input: onDomain(),
    output: accepted({ status: z.literal('Cancelled') }),
    handler: async ({ input, reseller, resolve }) => {
      const accepted = await resolve(TOKENS.domainManagementService).delete(reseller.id, input.domain);
      return successReply(accepted.pending, { status: 'Cancelled' });
    },
  }),
  route({
    method: 'get',
    path: '/domains/:domain/eppcode',
    access: 'reseller',
    summary: 'The EPP (transfer) code as {eppcode} (spec 4.13)',
    input: onDomain(),
    output: EppCode,
    handler: async ({ input, reseller, resolve }) => ({ eppcode: await resolve(TOKENS.domainManagementService).eppCode(reseller.id, input.domain) }),
  }),
  route({
    method: 'get',
    path: '/domains/:domain/contact',
    access: 'reseller',
    summary: 'Contact details by role (Registrant, Admin, Technical, Billing) with display field names (decisions.md)',
    input: onDomain(),
    output: ContactDetails,
    handler: async ({ input, reseller, resolve }) => contactsReply(await resolve(TOKENS.domainManagementService).contacts(reseller.id, input.domain)),
  }),
  route({
    method: 'post',
    path: '/domains/:domain/contact',
    access: 'reseller',
    summary: 'Saves contact details sent as contactdetails[Registrant][First Name]=… (decisions.md)',
    input: onDomain({ contactdetails: contactDetailsWire }),
    output: Success,
    handler: async ({ input, reseller, resolve }) => {
      await resolve(TOKENS.domainManagementService).saveContacts(reseller.id, input.domain, input.contactdetails);
      return 'success';
    },
  }),
  route({
    method: 'get',
    path: '/domains/:domain/email',
    access: 'reseller',
    summary: 'Email forwards as a list of {prefix, forwardto} (decisions.md)',
    input: onDomain(),
    output: EmailForwards,
    handler: async ({ input, reseller, resolve }) => emailForwardsReply(await resolve(TOKENS.domainManagementService).emailForwards(reseller.id, input.domain)),
  }),
  route({
    method: 'post',
    path: '/domains/:domain/email',
    access: 'reseller',
    summary: 'Saves email forwards from prefix[] and forwardto[] (decisions.md); none clears them',
    input: onDomain({ prefix: listWire('prefix', 'The mailbox names (before the @)'), forwardto: listWire('forwardto', 'The addresses to forward to') }),
    output: Success,
    handler: async ({ input, reseller, resolve }) => {
      await resolve(TOKENS.domainManagementService).saveEmailForwards(reseller.id, input.domain, input.prefix, input.forwardto);
      return 'success';
    },
  }),
  route({
    method: 'post',
    path: '/domains/:domain/release',
    access: 'reseller',
    summary: 'Releases the domain to the registrar named by transfertag (decisions.md); it is then Transferred Away',
    input: onDomain({ transfertag: text('transfertag') }),
    output: Success,
    handler: async ({ input, reseller, resolve }) => {
      await resolve(TOKENS.domainManagementService).release(reseller.id, input.domain, input.transfertag);
      return 'success';
    },
  }),
];
