import type { CallContext, Contact, ContactRole, Contacts, RegistrarOutcome } from 'domain-reseller';
import { fromContactInfo, newAuthCode, newContactId, toContactData } from './contacts';
import { roleIds } from './decisions';
import type { DomainInfo } from './domain-info';
import * as frames from './frames';
import type { DomainContactRef } from './frames';
import { InputError } from './input';
import type { EppOptions } from './options';
import { type Failure, refusalOf, refused, SUCCESS, settled } from './outcomes';
import type { RegistryCalls } from './registry-calls';
import type { NegotiatedServices } from './session-pool';
import { child, childText, NS } from './xml';

export const ROLE_TYPES = ['admin', 'tech', 'billing'] as const;

type ContactData = ReturnType<typeof toContactData>;

/** The contacts a registration creates, each for the roles it holds (the registrant's holds the roles left out). */
export interface ContactPlan {
  readonly create: Array<{ roles: ContactRole[]; data: ContactData; id?: string }>;
}

/** RFC 5733 contact objects: planned and created for a registration, read and replaced for a domain. */
export class ContactObjects {
  constructor(
    private readonly calls: RegistryCalls,
    private readonly options: Pick<EppOptions, 'contactMode' | 'postalInfoType' | 'contactIdPrefix' | 'authInfo'>,
  ) {}

  /** What a registration creates; refuses (before anything is sent) what the registry cannot take. */
  plan(services: NegotiatedServices, contacts: Contacts): ContactPlan {
    const mode = services.objectUris.includes(NS.contact) ? this.options.contactMode : 'none';
    if (mode === 'none') return { create: [] };
    const registrant = contacts.registrant;
    if (!registrant) throw new InputError('a registrant contact is required');
    const entries: ContactPlan['create'] = [
      { roles: ['registrant'], data: toContactData(registrant, 'registrant', this.options.postalInfoType) },
    ];
    if (mode === 'full') {
      for (const role of ROLE_TYPES) {
        const given = contacts[role];
        // A role left out is held by the registrant's contact, as most registries require admin and tech.
        if (!given || sameContact(given, registrant)) entries[0]!.roles.push(role);
        else entries.push({ roles: [role], data: toContactData(given, role, this.options.postalInfoType) });
      }
    }
    return { create: entries };
  }

  async create(data: ContactData, ctx: CallContext): Promise<{ ok: true; id: string } | Failure> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const id = newContactId(this.options.contactIdPrefix);
      const response = await this.calls.run(
        (t) => frames.contactCreateFrame(id, data, newAuthCode(this.options.authInfo), t),
        ctx,
        false,
      );
      if (SUCCESS.has(response.code)) return { ok: true, id };
      if (response.code !== 2302) return refusalOf(response, 'the contact');
    }
    return refused('the registry refused two fresh contact ids as taken');
  }

  /** The domain's contacts by role, as the registry holds them. */
  async read(info: DomainInfo, ctx: CallContext): Promise<Partial<Record<ContactRole, Contact>>> {
    const ids = roleIds(info);
    const byId = new Map<string, Contact>();
    for (const id of new Set(Object.values(ids))) {
      const response = await this.calls.run((t) => frames.contactInfoFrame(id, t), ctx, true);
      const inf = child(response.resData, NS.contact, 'infData');
      if (response.code === 1000 && inf) byId.set(id, fromContactInfo(inf));
    }
    const contacts: Partial<Record<ContactRole, Contact>> = {};
    for (const [role, id] of Object.entries(ids) as Array<[ContactRole, string]>)
      if (byId.has(id)) contacts[role] = byId.get(id)!;
    return contacts;
  }

  /**
   * Replaces the given roles' contacts: a contact of ours held by that role alone is updated in
   * place, any other is replaced by a new one.
   */
  async save(name: string, info: DomainInfo, given: Contacts, ctx: CallContext): Promise<RegistrarOutcome> {
    const ids = roleIds(info);
    const usage = new Map<string, number>();
    for (const id of Object.values(ids)) usage.set(id, (usage.get(id) ?? 0) + 1);
    const add: DomainContactRef[] = [];
    const rem: DomainContactRef[] = [];
    let newRegistrant: string | undefined;
    for (const [role, contact] of Object.entries(given) as Array<[ContactRole, Contact | undefined]>) {
      if (!contact) continue;
      if (this.options.contactMode === 'registrant' && role !== 'registrant') continue;
      const data = toContactData(contact, role, this.options.postalInfoType);
      const currentId = ids[role];
      if (currentId && usage.get(currentId) === 1 && (await this.isOurs(currentId, ctx))) {
        const response = await this.calls.run((t) => frames.contactUpdateFrame(currentId, data, t), ctx, false);
        const outcome = settled(response, `the ${role} contact`);
        if (!outcome.ok) return outcome;
        continue;
      }
      const created = await this.create(data, ctx);
      if (!created.ok) return created;
      if (role === 'registrant') newRegistrant = created.id;
      else {
        add.push({ type: role, id: created.id });
        if (currentId) rem.push({ type: role, id: currentId });
      }
    }
    if (!newRegistrant && add.length === 0) return { ok: true };
    const response = await this.calls.run(
      (t) =>
        frames.domainUpdateFrame(
          { name, add: { contacts: add }, rem: { contacts: rem }, chg: { registrant: newRegistrant } },
          t,
        ),
      ctx,
      false,
    );
    return settled(response, name);
  }

  /** The e-mail address of a contact, when the registry shows it. */
  async emailOf(id: string, ctx: CallContext): Promise<string | undefined> {
    const contact = await this.calls.run((t) => frames.contactInfoFrame(id, t), ctx, true).catch(() => undefined);
    return contact?.code === 1000
      ? childText(child(contact.resData, NS.contact, 'infData'), NS.contact, 'email')
      : undefined;
  }

  private async isOurs(id: string, ctx: CallContext): Promise<boolean> {
    const response = await this.calls.run((t) => frames.contactInfoFrame(id, t), ctx, true);
    return (
      response.code === 1000 &&
      childText(child(response.resData, NS.contact, 'infData'), NS.contact, 'clID') === this.calls.clientId
    );
  }
}

function sameContact(a: Contact, b: Contact): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((k) => (a[k] ?? '') === (b[k] ?? ''));
}
