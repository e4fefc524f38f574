/**
 * The shape of every reply (docs/api.md#replies), as each route's `output`: one source for
 * the OpenAPI document and for the tests that check real replies against it. Objects are strict,
 * so a key a reply grows without the document saying so fails the tests.
 */
import { z } from 'zod';

export const Decimal = z
  .string()
  .regex(/^-?\d+\.\d{2}$/)
  .meta({ description: 'An exact amount with two decimals, like "10.00"', examples: ['10.00'] });
const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .meta({ description: 'YYYY-MM-DD', examples: ['2027-11-21'] });
const IsoDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/)
  .meta({ description: 'ISO 8601 date-time in UTC', examples: ['2027-11-21T00:00:00Z'] });

export const ErrorReply = z.strictObject({
  error: z.string().meta({ description: 'What was wrong, in words a reseller can act on' }),
});

export const Success = z.literal('success').meta({ description: 'The JSON string "success"' });
export const Version = z.string().meta({ description: 'The module version', examples: ['0.1.0'] });
export const Credits = Decimal.meta({ description: 'The credit balance as a decimal string', examples: ['123.45'] });
export const TldList = z.array(z.string().regex(/^\.[a-z0-9.-]+$/)).meta({ examples: [['.com', '.net']] });

export const PeriodPrices = z
  .record(z.string().regex(/^\d{1,2}$/), Decimal)
  .meta({ description: 'Price per period in years', examples: [{ 1: '10.00', 2: '19.50' }] });

export const TldPricingRows = z
  .array(
    z.strictObject({
      tld: z.string(),
      years: z.number().int(),
      registrationPrice: Decimal.optional(),
      renewalPrice: Decimal.optional(),
      transferPrice: Decimal.optional(),
      graceDays: z.number().int(),
      graceFee: Decimal,
      redemptionDays: z.number().int(),
      redemptionFee: Decimal,
      currencyCode: z.string().regex(/^[A-Z]{3}$/),
    }),
  )
  .meta({ description: 'One row per TLD and period; a price not set for that period is left out' });

const Prices = z.strictObject({ register: Decimal, renew: Decimal.optional(), transfer: Decimal.optional() });

export const Suggestion = z
  .strictObject({
    domainName: z.string(),
    idnDomainName: z.string(),
    tld: z.string(),
    tldNoDots: z.string(),
    sld: z.string(),
    idnSld: z.string(),
    status: z.enum(['available for registration', 'registered', 'reserved', 'unknown', 'tld not supported']),
    legacyStatus: z.enum(['available', 'unavailable']),
    score: z.number(),
    isRegistered: z.boolean(),
    isAvailable: z.boolean(),
    isValidDomain: z.boolean(),
    domainErrorMessage: z.string(),
    pricing: z.record(z.string(), Prices),
    shortestPeriod: z.union([
      z.strictObject({
        period: z.number().int(),
        register: Decimal,
        renew: Decimal.optional(),
        transfer: Decimal.optional(),
      }),
      z.strictObject({}),
    ]),
    group: z.string(),
    minLength: z.number().int(),
    maxLength: z.number().int(),
    isPremium: z.boolean(),
    premiumCostPricing: z.union([
      z.array(z.unknown()).max(0).meta({ description: 'An empty array when the name is not premium' }),
      z.strictObject({
        register: Decimal.optional(),
        renew: Decimal.optional(),
        transfer: Decimal.optional(),
        CurrencyCode: z.string(),
      }),
    ]),
  })
  .meta({ description: 'One search result' });
export const Suggestions = z.array(Suggestion);

export const Information = z
  .strictObject({
    domain: z.string(),
    nameservers: z.array(z.string()),
    transferLock: z.boolean(),
    expiryDate: IsoDateTime.optional(),
    registrationStatus: z.string(),
    status: z.string().meta({ description: 'The same as registrationStatus: deployed clients read this key' }),
    restorable: z.boolean(),
    renewBeforeExpiration: z.boolean(),
    idProtectionStatus: z.boolean(),
    dnsManagementStatus: z.boolean(),
    emailForwardingStatus: z.boolean(),
    transferLockExpiryDate: IsoDateTime.optional(),
    irtpOptOutStatus: z.boolean(),
    irtpTransferLock: z.boolean(),
    irtpTransferLockExpiryDate: IsoDateTime.optional(),
    domainContactChangePending: z.boolean(),
    domainContactChangeExpiryDate: IsoDateTime.optional(),
    willDomainSuspend: z.boolean(),
    isIrtpEnabled: z.boolean(),
    irtpVerificationTriggerFields: z.array(z.string()),
    registrantEmailAddress: z.string().optional(),
  })
  .meta({ description: 'Domain information; a date that is unknown is left out, never null' });

export const DnsRecords = z
  .array(
    z.strictObject({
      hostname: z.string(),
      type: z.string(),
      address: z.string(),
      priority: z.string(),
      recid: z.string().optional(),
    }),
  )
  .meta({ description: 'DNS records; priority is "N/A" for a type without one' });

export const SyncResult = z
  .strictObject({
    active: z.boolean(),
    expired: z.boolean(),
    transferredAway: z.boolean(),
    cancelled: z.boolean(),
    expirydate: IsoDate.optional(),
  })
  .meta({ description: 'Domain sync' });

export const TransferSyncResult = z
  .strictObject({
    completed: z.boolean(),
    failed: z.boolean(),
    reason: z.string(),
    expirydate: IsoDate.optional(),
  })
  .meta({ description: 'Transfer sync' });

export const Nameservers = z
  .strictObject({ ns1: z.string(), ns2: z.string(), ns3: z.string(), ns4: z.string(), ns5: z.string() })
  .meta({ description: 'Unset nameservers are empty strings' });

export const LockState = z.enum(['locked', 'unlocked']);

/** `{"success": true, …}`; `pending` when the registrar completes the change later. */
export const accepted = <Shape extends z.ZodRawShape>(extra?: Shape) =>
  z.strictObject({ success: z.literal(true), pending: z.literal(true).optional(), ...(extra as Shape) });

export const EppCode = z.strictObject({ eppcode: z.string() });

export const ContactDetails = z
  .partialRecord(z.enum(['Registrant', 'Admin', 'Technical', 'Billing']), z.record(z.string(), z.string()))
  .meta({
    description: 'Contacts by role, with the billing platform\'s field names ("First Name", "Email Address", …)',
  });

export const EmailForwards = z.array(z.strictObject({ prefix: z.string(), forwardto: z.string() }));
