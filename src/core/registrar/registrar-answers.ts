/**
 * Registrar answers are untrusted input: a plugin relays whatever a registry said. Each answer is
 * checked against one of these schemas before the platform uses it; the conformance kit checks
 * plugins against the same schemas, so "passes the kit" and "accepted in production" agree.
 */
import { z } from 'zod';
import { CONTACT_ROLES, type CAPABILITY_METHODS, type CapabilityName, type REQUIRED_METHODS } from './plugin';

const MAX_MESSAGE = 300;

/** A registrar's message as a client may see it: one line, no control characters, bounded. */
export function cleanMessage(text: unknown): string {
  const line = String(text ?? '')
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const short = line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE - 1)}…` : line;
  return short === '' ? 'no reason given' : short;
}

const isCalendarDate = (text: string) => {
  const d = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === text;
};

/** A date as registrars write it ("2027-11-21" or an ISO date-time), normalised to YYYY-MM-DD. */
export const RegistrarDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:[T ][0-9:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$/, 'must be a date like 2027-11-21')
  .transform((text) => text.slice(0, 10))
  .refine(isCalendarDate, 'must be a real calendar date');

/** A date-time for the information reply's optional dates, normalised to ISO 8601 in UTC. */
const RegistrarDateTime = z
  .string()
  .max(40)
  .transform((text) => (/^\d{4}-\d{2}-\d{2}$/.test(text) ? `${text}T00:00:00Z` : text))
  .transform((text) => new Date(text))
  .refine((d) => !Number.isNaN(d.getTime()), 'must be an ISO 8601 date')
  .transform((d) => d.toISOString());

const HOST = /^(?=.{1,253}$)(?:[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;
export const Hostname = z
  .string()
  .transform((h) => h.trim().toLowerCase().replace(/\.$/, ''))
  .refine((h) => HOST.test(h), 'must be a host name');

const ShortText = (max: number) => z.string().max(max);

export const Failure = z.object({
  ok: z.literal(false),
  reason: z.enum(['unavailable', 'refused', 'pending']),
  message: z.unknown().transform(cleanMessage),
});

/** `RegistrarOutcome<T>` for a given success shape. */
export const outcome = <Shape extends z.ZodRawShape>(shape: Shape) =>
  z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), ...shape }), Failure]);

export const Done = outcome({});

export const Registered = outcome({ expiryDate: RegistrarDate });
export const TransferStarted = outcome({ expiryDate: RegistrarDate.optional() });

const Money = z.number().int().min(0).max(100_000_000_00);

/**
 * One name of an availability answer, read field by field. A status the platform does not know
 * reads `unknown`; but the premium fields decide what a name costs, so a malformed one (an
 * `isPremium` that is not a boolean, a price that is not a whole number of minor units, a premium
 * cost of 0) makes the whole entry unusable: a fault, never a default (issue 26 items 2, 3).
 */
export const AvailabilityEntry = z
  .object({
    domain: z
      .string()
      .max(253)
      .transform((d) => d.toLowerCase()),
    status: z.enum(['available', 'registered', 'reserved', 'unknown']).catch('unknown'),
    isPremium: z.boolean().optional(),
    premiumPrice: z.object({ register: Money, renew: Money.optional(), transfer: Money.optional() }).optional(),
  })
  .superRefine((entry, ctx) => {
    if (entry.isPremium !== true || !entry.premiumPrice) return;
    for (const [action, cost] of Object.entries(entry.premiumPrice))
      if (cost === 0) ctx.addIssue({ code: 'custom', path: ['premiumPrice', action], message: 'a premium cost of 0' });
  });

const NameserverList = z.preprocess(
  (v) => (Array.isArray(v) ? v.filter((n) => n !== '' && n !== null) : v),
  z.array(Hostname).max(13),
);

/** The docs/api.md#domain-information fields beyond the core ones a registrar may add in `extra`; each is checked on its own. */
export const INFORMATION_EXTRAS = {
  transferLockExpiryDate: RegistrarDateTime,
  irtpOptOutStatus: z.boolean(),
  irtpTransferLock: z.boolean(),
  irtpTransferLockExpiryDate: RegistrarDateTime,
  domainContactChangePending: z.boolean(),
  domainContactChangeExpiryDate: RegistrarDateTime,
  willDomainSuspend: z.boolean(),
  isIrtpEnabled: z.boolean(),
  irtpVerificationTriggerFields: z.array(ShortText(64)).max(50),
  renewBeforeExpiration: z.boolean(),
} as const;
export type InformationExtras = {
  -readonly [K in keyof typeof INFORMATION_EXTRAS]?: z.infer<(typeof INFORMATION_EXTRAS)[K]>;
};

export const Information = outcome({
  nameservers: NameserverList,
  transferLock: z.boolean().optional(),
  expiryDate: RegistrarDate.optional(),
  registrationStatus: ShortText(64).optional(),
  idProtection: z.boolean().optional(),
  dnsManagement: z.boolean().optional(),
  emailForwarding: z.boolean().optional(),
  restorable: z.boolean().optional(),
  registrantEmail: ShortText(254).optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
});

export const Nameservers = outcome({ nameservers: NameserverList });
export const Lock = outcome({ locked: z.boolean() });
export const EppCode = outcome({ eppCode: ShortText(255) });

const DnsRecordAnswer = z.object({
  hostname: ShortText(253),
  type: ShortText(10).transform((t) => t.toUpperCase()),
  address: ShortText(4096),
  priority: z.union([z.string().max(10), z.number().int().min(0).max(65535).transform(String)]).optional(),
  recid: z.union([z.string().max(64), z.number().int().transform(String)]).optional(),
});
export const DnsRecords = outcome({ records: z.array(DnsRecordAnswer).max(1000) });

const ContactAnswer = z.record(ShortText(64), z.union([ShortText(255), z.number().transform(String)]));
export const ContactsAnswer = outcome({
  contacts: z.object(
    Object.fromEntries(CONTACT_ROLES.map((r) => [r, ContactAnswer.optional()])) as Record<
      (typeof CONTACT_ROLES)[number],
      z.ZodOptional<typeof ContactAnswer>
    >,
  ),
});

export const EmailForwards = outcome({
  forwards: z.array(z.object({ prefix: ShortText(64), forwardTo: ShortText(254) })).max(500),
});

export const DomainSync = outcome({
  active: z.boolean(),
  expired: z.boolean(),
  transferredAway: z.boolean(),
  cancelled: z.boolean().optional(),
  expiryDate: RegistrarDate.optional(),
});

export const TransferSync = outcome({
  completed: z.boolean(),
  failed: z.boolean(),
  reason: z
    .unknown()
    .optional()
    .transform((r) => (r === undefined || r === null || r === '' ? undefined : cleanMessage(r))),
  expiryDate: RegistrarDate.optional(),
});

export const SuggestionEntry = z.object({
  domain: z.string().max(253),
  score: z.number().min(0).max(100).optional(),
});

export const TldPriceEntry = z.object({
  tld: z.string().regex(/^\.[a-z0-9.-]{1,63}$/),
  period: z.number().int().min(1).max(10),
  register: Money.optional(),
  renew: Money.optional(),
  transfer: Money.optional(),
});

/** `domainPricing.price`: a premium answer carries its cost, and a premium cost is never 0. */
export const DomainPriceAnswer = outcome({
  isPremium: z.boolean(),
  cost: Money.optional(),
}).superRefine((answer, ctx) => {
  if (!answer.ok || !answer.isPremium) return;
  if (answer.cost === undefined)
    ctx.addIssue({ code: 'custom', path: ['cost'], message: 'a premium price needs its cost' });
  else if (answer.cost === 0) ctx.addIssue({ code: 'custom', path: ['cost'], message: 'a premium cost of 0' });
});

/**
 * A batch answer (a list): checked element by element, so one bad element is dropped (and
 * logged) instead of costing the whole answer; an answer that is not a list, or longer than
 * `max`, cannot be used at all.
 */
export interface ListAnswer<E extends z.ZodType = z.ZodType> {
  readonly element: E;
  readonly max: number;
  /**
   * What identifies an element, when the list may hold each at most once: elements sharing a key
   * contradict each other (a name listed twice, standard then premium), so all of them are dropped.
   */
  readonly keyOf?: (element: z.output<E>) => string;
}
const list = <E extends z.ZodType>(element: E, max: number, keyOf?: (element: z.output<E>) => string): ListAnswer<E> =>
  keyOf ? { element, max, keyOf } : { element, max };

/**
 * The answer schema of every method a plugin has, by capability and method: the guarded
 * registrar checks every answer against it in production, and the conformance kit holds plugins
 * to the same table.
 */
export const ANSWERS = {
  checkAvailability: list(AvailabilityEntry, 1000, (entry) => entry.domain),
  register: Registered,
  renew: Registered,
  transfer: { transfer: TransferStarted },
  domainInformation: { get: Information },
  nameservers: { get: Nameservers, save: Done },
  childHosts: { register: Done, modify: Done, delete: Done },
  dnsRecords: { get: DnsRecords, save: Done },
  registrarLock: { get: Lock, save: Done },
  idProtection: { save: Done },
  eppCode: { get: EppCode },
  contacts: { get: ContactsAnswer, save: Done },
  emailForwarding: { get: EmailForwards, save: Done },
  delete: { delete: Done },
  release: { release: Done },
  domainSync: { sync: DomainSync },
  transferSync: { sync: TransferSync },
  suggestions: { suggest: list(SuggestionEntry, 1000) },
  tldPricing: { prices: list(TldPriceEntry, 10_000) },
  domainPricing: { price: DomainPriceAnswer },
} as const satisfies {
  readonly [C in CapabilityName]: { readonly [M in (typeof CAPABILITY_METHODS)[C][number]]: z.ZodType | ListAnswer };
} & Readonly<Record<(typeof REQUIRED_METHODS)[number], z.ZodType | ListAnswer>>;

/** What a checked answer is: the schema's output, or a list of the element's outputs. */
export type AnswerOf<S> = S extends ListAnswer<infer E> ? z.output<E>[] : S extends z.ZodType ? z.output<S> : never;
