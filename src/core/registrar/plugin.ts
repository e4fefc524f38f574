/**
 * The registrar plugin contract: a small required part (availability, register, renew) plus
 * optional capability groups. A capability groups the methods that belong together, so a plugin
 * cannot half-implement one. Plugins return expected registrar answers as values
 * (`RegistrarOutcome`) and throw only for faults (network down, garbage answers).
 *
 * Every call gets a `CallContext` whose signal fires at the registrar deadline
 * (`REGISTRAR_TIMEOUT_MS`); the platform stops waiting at that moment whatever the plugin does.
 */
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';

export const PLUGIN_API_VERSION = 1;

export interface CallContext {
  /** Aborted at the registrar deadline; long calls must stop when it fires. */
  readonly signal: AbortSignal;
  /** Unique per call (an EPP clTRID, an idempotency key upstream); recorded with orders for reconciliation. */
  readonly transactionId: string;
}

/** Contact fields, normalised to the lower-case names of docs/api.md#contacts-field (firstname, lastname, email, …). */
export type Contact = Readonly<Record<string, string>>;
export const CONTACT_ROLES = ['registrant', 'admin', 'tech', 'billing'] as const;
export type ContactRole = (typeof CONTACT_ROLES)[number];
export type Contacts = Readonly<Partial<Record<ContactRole, Contact>>>;

export type AvailabilityStatus = 'available' | 'registered' | 'reserved' | 'unknown';

export interface AvailabilityResult {
  /** ASCII (punycode) name exactly as asked. */
  readonly domain: string;
  readonly status: AvailabilityStatus;
  readonly isPremium?: boolean;
  /** Premium prices in minor units of the platform currency, when the registry charges them. */
  readonly premiumPrice?: { readonly register: number; readonly renew?: number; readonly transfer?: number };
}

/**
 * The expected answers of a registrar:
 * - `unavailable`: the name cannot be had (taken, reserved);
 * - `refused`: a definite refusal (policy, bad data, not ours); nothing happened at the registry;
 * - `pending`: accepted but not finished (a registry that completes later); reconciliation settles it.
 * An outcome that is not known (no answer by the deadline) is never returned: the call throws or is cut off.
 */
export type RegistrarOutcome<T = object> =
  | ({ readonly ok: true } & T)
  | { readonly ok: false; readonly reason: 'unavailable' | 'refused' | 'pending'; readonly message: string };

export interface RegisterInput {
  readonly domain: string;
  readonly period: number;
  readonly nameservers: readonly string[];
  readonly contacts: Contacts;
  readonly addons: Readonly<Record<string, boolean>>;
  /** TLD-specific fields (decoded `domainfields`). */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly idnLanguage?: string;
  /**
   * Only for a premium name: the registry's yearly cost (minor units) the order was priced on and
   * the reseller accepted, from this plugin's own `premiumPrice` answer. A registrar that must be
   * told it accepts a premium fee accepts at most this; absent, the order accepted no premium price.
   */
  readonly premiumCost?: number;
}

export interface TransferInput extends RegisterInput {
  readonly eppCode: string;
}

export interface RenewInput {
  readonly domain: string;
  readonly period: number;
  /** YYYY-MM-DD as the platform holds it; registries ask for it on renew. */
  readonly currentExpiryDate: string | null;
  /** As for a registration: the premium renewal cost the order accepted, only for a premium name. */
  readonly premiumCost?: number;
}

export interface DomainRef {
  readonly domain: string;
}

export interface Registered {
  /** YYYY-MM-DD. */
  readonly expiryDate: string;
}

export interface DomainInformation {
  readonly nameservers: readonly string[];
  readonly transferLock?: boolean;
  readonly expiryDate?: string;
  readonly registrationStatus?: string;
  readonly idProtection?: boolean;
  readonly dnsManagement?: boolean;
  readonly emailForwarding?: boolean;
  readonly restorable?: boolean;
  readonly registrantEmail?: string;
  /** Anything else of docs/api.md#domain-information the registrar knows (irtp fields, transferLockExpiryDate, …). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface DnsRecord {
  readonly hostname: string;
  readonly type: string;
  readonly address: string;
  readonly priority?: string;
  readonly recid?: string;
}

export interface EmailForward {
  readonly prefix: string;
  readonly forwardTo: string;
}

export interface DomainSyncResult {
  readonly active: boolean;
  readonly expired: boolean;
  readonly transferredAway: boolean;
  readonly cancelled?: boolean;
  /** YYYY-MM-DD. */
  readonly expiryDate?: string;
}

export interface TransferSyncResult {
  readonly completed: boolean;
  readonly failed: boolean;
  readonly reason?: string;
  readonly expiryDate?: string;
}

export interface Suggestion {
  readonly domain: string;
  /** 0..100, higher is more relevant. */
  readonly score?: number;
}

export interface TldPriceOffer {
  readonly tld: string;
  readonly period: number;
  readonly register?: number;
  readonly renew?: number;
  readonly transfer?: number;
}

/** The price question for a name that is registered: one action, one period. */
export interface DomainPriceInput extends DomainRef {
  readonly action: 'renew' | 'transfer';
  /** Years, as the order asks for them. */
  readonly period: number;
}

/** What the registry charges for a registered name's renewal or transfer. */
export interface DomainPrice {
  /** Whether the registry charges a premium price for this name and action. */
  readonly isPremium: boolean;
  /**
   * The registry's cost for the whole period asked, in minor units of the platform currency.
   * Required when `isPremium` (and never 0); optional otherwise (the catalogue prices standard names).
   */
  readonly cost?: number;
}

// ---- optional capabilities: each states its fallback (or that there is none) ----

/**
 * Optional. The price of renewing or transferring a name that is registered, asked before every
 * renewal and transfer order (an availability answer only says "registered" for such a name, with
 * no premium flag). EPP's fee extension (RFC 8748) and registrars' REST price calls answer it.
 * Without it, the platform reads availability as for a registration; a name it sold as premium
 * whose price availability cannot tell is then refused, never charged the catalogue price.
 */
export interface DomainPricingCapability {
  price(input: DomainPriceInput, ctx: CallContext): Promise<RegistrarOutcome<DomainPrice>>;
}

/** Optional. Without it, transfer orders are refused with a 400 naming the capability. */
export interface TransferCapability {
  transfer(input: TransferInput, ctx: CallContext): Promise<RegistrarOutcome<Partial<Registered>>>;
}
/** Optional. Without it, information is assembled from nameservers, lock status and the platform's own record (docs/api.md#domain-information). */
export interface DomainInformationCapability {
  get(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<DomainInformation>>;
}
/** Optional. No fallback. Required for the information fallback. */
export interface NameserversCapability {
  get(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<{ nameservers: readonly string[] }>>;
  save(input: DomainRef & { nameservers: readonly string[] }, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. No fallback. */
export interface ChildHostsCapability {
  register(input: DomainRef & { host: string; ipAddress: string }, ctx: CallContext): Promise<RegistrarOutcome>;
  modify(
    input: DomainRef & { host: string; currentIpAddress: string; newIpAddress: string },
    ctx: CallContext,
  ): Promise<RegistrarOutcome>;
  delete(input: DomainRef & { host: string }, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. No fallback. */
export interface DnsRecordsCapability {
  get(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<{ records: readonly DnsRecord[] }>>;
  save(input: DomainRef & { records: readonly DnsRecord[] }, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. Without it, lock endpoints answer 400 naming it, and information reports the lock the platform last knew. */
export interface RegistrarLockCapability {
  get(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<{ locked: boolean }>>;
  save(input: DomainRef & { locked: boolean }, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. No fallback. */
export interface IdProtectionCapability {
  save(input: DomainRef & { enabled: boolean }, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. No fallback. */
export interface EppCodeCapability {
  get(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<{ eppCode: string }>>;
}
/** Optional. No fallback. */
export interface ContactsCapability {
  get(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<{ contacts: Contacts }>>;
  save(input: DomainRef & { contacts: Contacts }, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. No fallback. */
export interface EmailForwardingCapability {
  get(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<{ forwards: readonly EmailForward[] }>>;
  save(input: DomainRef & { forwards: readonly EmailForward[] }, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. No fallback. */
export interface DeleteCapability {
  delete(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. No fallback. */
export interface ReleaseCapability {
  release(input: DomainRef & { transferTag: string }, ctx: CallContext): Promise<RegistrarOutcome>;
}
/** Optional. Without it, sync reports the platform's own record unchanged. */
export interface DomainSyncCapability {
  sync(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<DomainSyncResult>>;
}
/** Optional. Without it, transfer sync answers completed with the platform's expiry date (docs/api.md#transfer-sync). */
export interface TransferSyncCapability {
  sync(input: DomainRef, ctx: CallContext): Promise<RegistrarOutcome<TransferSyncResult>>;
}
/** Optional. Without it, search uses the platform's own suggestion generator. */
export interface SuggestionsCapability {
  suggest(input: { term: string; tlds: readonly string[]; limit: number }, ctx: CallContext): Promise<Suggestion[]>;
}
/** Optional. Without it, prices come from the catalogue alone. */
export interface TldPricingCapability {
  prices(ctx: CallContext): Promise<TldPriceOffer[]>;
}

export interface RegistrarCapabilities {
  readonly transfer?: TransferCapability;
  readonly domainInformation?: DomainInformationCapability;
  readonly nameservers?: NameserversCapability;
  readonly childHosts?: ChildHostsCapability;
  readonly dnsRecords?: DnsRecordsCapability;
  readonly registrarLock?: RegistrarLockCapability;
  readonly idProtection?: IdProtectionCapability;
  readonly eppCode?: EppCodeCapability;
  readonly contacts?: ContactsCapability;
  readonly emailForwarding?: EmailForwardingCapability;
  readonly delete?: DeleteCapability;
  readonly release?: ReleaseCapability;
  readonly domainSync?: DomainSyncCapability;
  readonly transferSync?: TransferSyncCapability;
  readonly suggestions?: SuggestionsCapability;
  readonly tldPricing?: TldPricingCapability;
  readonly domainPricing?: DomainPricingCapability;
}

export type CapabilityName = keyof RegistrarCapabilities;

export const CAPABILITY_NAMES: readonly CapabilityName[] = [
  'transfer',
  'domainInformation',
  'nameservers',
  'childHosts',
  'dnsRecords',
  'registrarLock',
  'idProtection',
  'eppCode',
  'contacts',
  'emailForwarding',
  'delete',
  'release',
  'domainSync',
  'transferSync',
  'suggestions',
  'tldPricing',
  'domainPricing',
];

export interface RegistrarPlugin extends RegistrarCapabilities {
  readonly id: string;
  /** Batched: a plugin should check all names in as few registry round trips as it can. */
  checkAvailability(domains: readonly string[], ctx: CallContext): Promise<AvailabilityResult[]>;
  register(input: RegisterInput, ctx: CallContext): Promise<RegistrarOutcome<Registered>>;
  renew(input: RenewInput, ctx: CallContext): Promise<RegistrarOutcome<Registered>>;
  /** Called once on shutdown. */
  close?(): Promise<void>;
}

/**
 * The methods of each capability. A capability is all or nothing: the loader refuses a plugin
 * that implements part of one, and the conformance kit calls every method listed here.
 */
export const CAPABILITY_METHODS: {
  readonly [C in CapabilityName]-?: readonly (keyof NonNullable<RegistrarCapabilities[C]>)[];
} = {
  transfer: ['transfer'],
  domainInformation: ['get'],
  nameservers: ['get', 'save'],
  childHosts: ['register', 'modify', 'delete'],
  dnsRecords: ['get', 'save'],
  registrarLock: ['get', 'save'],
  idProtection: ['save'],
  eppCode: ['get'],
  contacts: ['get', 'save'],
  emailForwarding: ['get', 'save'],
  delete: ['delete'],
  release: ['release'],
  domainSync: ['sync'],
  transferSync: ['sync'],
  suggestions: ['suggest'],
  tldPricing: ['prices'],
  domainPricing: ['price'],
};

export const REQUIRED_METHODS = ['checkAvailability', 'register', 'renew'] as const;

/** The one typed way to ask "does this plugin (or guarded registrar) have capability X". */
export function supports<R extends { readonly [K in CapabilityName]?: unknown }, C extends CapabilityName>(
  registrar: R,
  capability: C,
): registrar is R & { readonly [K in C]-?: NonNullable<R[K]> } {
  return registrar[capability] !== undefined;
}

/**
 * A small key/value store in the platform database, private to one plugin. It survives restarts
 * and is shared by every process on the same database (the server and `reseller-admin`), so a
 * plugin keeps state here rather than in memory or in files. Values are stored as JSON.
 */
export interface PluginStore {
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Creates or replaces the value. */
  set(key: string, value: unknown): Promise<void>;
  /** Stores the value only when the key is absent; answers whether it did (an atomic claim). */
  setIfAbsent(key: string, value: unknown): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Keys starting with `prefix`, sorted. */
  keys(prefix?: string): Promise<string[]>;
}

/** Keys of a `PluginStore` are 1 to 191 characters (an index limit of MariaDB's utf8mb4). */
export const PLUGIN_STORE_MAX_KEY_LENGTH = 191;

/** What the platform hands a plugin when it creates it. */
export interface PluginHost {
  /** A child logger bound to the plugin id. */
  readonly logger: Logger;
  /** The platform's clock: use it for "today" so tests can move time. */
  readonly clock: Clock;
  /** The plugin's own storage in the platform database. */
  readonly store: PluginStore;
}

const DEFINITION = Symbol.for('reseller/RegistrarPluginDefinition');

export interface RegistrarPluginDefinition<
  Options = Record<string, unknown>,
  Created extends RegistrarPlugin | PluginNotConfigured = RegistrarPlugin | PluginNotConfigured,
> {
  readonly [DEFINITION]: true;
  readonly id: string;
  readonly apiVersion: number;
  /** Checks and normalises the plugin's options; throws an Error naming the bad option. */
  parseOptions(raw: Record<string, unknown>): Options;
  /**
   * Creates the plugin. A plugin installed without the options it needs returns
   * `notConfigured(reason)` instead: the loader keeps it installed with its declared capabilities,
   * and every call to it fails with that reason, so that the platform still starts.
   */
  create(options: Options, host: PluginHost): Created | Promise<Created>;
  /**
   * Optional. Operator commands, run as `reseller-admin <plugin id> <command name>`
   * (docs/plugins.md#operator-commands). Without them the plugin adds no command.
   */
  readonly commands?: readonly PluginCommand[];
}

/** One operator command a plugin adds to `reseller-admin`, under its own id. */
export interface PluginCommand {
  /** kebab-case, as typed after the plugin id. */
  readonly name: string;
  /** One line for `reseller-admin <plugin id> --help`. */
  readonly description: string;
  readonly flags?: readonly PluginCommandFlag[];
  /** More help, shown after the command's flags. */
  readonly help?: string;
  /**
   * The audit log's action for a run that succeeds, like `epp.password.change` (default:
   * `<plugin id>.<name>`). Every run is audited: `<action>.requested` with the flags before `run`
   * is called, then `<action>`, `<action>.refused` (a usage error) or `<action>.failed` with the reason.
   */
  readonly auditAction?: string;
  /**
   * Runs the command; what it returns is printed as JSON (or a table with `--format table`). Throw
   * `pluginUsageError(message)` for input the operator must correct (exit 2); any other error is
   * a failure (exit 1) and its message is printed.
   */
  run(context: PluginCommandContext): Promise<unknown>;
}

/** A flag taking a value, `--<name> <value>`. */
export interface PluginCommandFlag {
  /** kebab-case; `run` finds the value under the camelCase key (`new-password-env` → `newPasswordEnv`). */
  readonly name: string;
  /** What the value is, for the help (`<name>`). */
  readonly value: string;
  readonly description: string;
  readonly isRequired?: boolean;
}

export interface PluginCommandContext {
  /** The plugin's options as configured (`plugins.<id>`), not yet parsed: the command parses what it needs. */
  readonly rawOptions: Readonly<Record<string, unknown>>;
  /** The flags given, by camelCase name. */
  readonly flags: Readonly<Record<string, string | undefined>>;
  /** The command's environment: read secrets from a variable the operator names, never from a flag. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A secret option's value, or what is wrong with it in words that never contain the secret. */
export type SecretOption =
  | { readonly value: string; readonly problem?: undefined }
  | { readonly value?: undefined; readonly problem: string };

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const CONVENTIONAL_ENV_NAME = /^[A-Z_][A-Z0-9_]{0,63}$/;

/**
 * A secret option (a password, an API key) given inline as `<name>` or, better, through the
 * environment variable `<name>Env` names, so that it never sits in the configuration file:
 * `secretOption(raw, 'password', env, 'ACME_PASSWORD')` reads `password` or `passwordEnv`. Either
 * one is required, not both; surrounding white space is dropped. A plugin's `parseOptions` adds
 * `problem` to the others it reports, so every problem is listed at once.
 */
export function secretOption(
  raw: Readonly<Record<string, unknown>>,
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  exampleVariable = `${name.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`,
): SecretOption {
  const envName = `${name}Env`;
  const isGiven = (value: unknown) => value !== undefined && value !== '';
  const inline = raw[name];
  const variable = raw[envName];
  if (isGiven(inline) && typeof inline !== 'string') return { problem: `${name} must be text` };
  if (isGiven(variable) && typeof variable !== 'string') return { problem: `${envName} must be text` };
  if (isGiven(inline) && isGiven(variable)) return { problem: `give ${name} or ${envName}, not both` };
  if (typeof variable === 'string' && isGiven(variable)) {
    const named = variable.trim();
    if (!ENV_NAME.test(named))
      return { problem: `${envName} must be the name of an environment variable, like ${exampleVariable}` };
    const value = env[named]?.trim();
    if (value) return { value };
    // A secret pasted where its variable's name goes is often a valid name too: only a name
    // written as variables are (upper case) is repeated.
    return CONVENTIONAL_ENV_NAME.test(named)
      ? { problem: `${envName} names ${named}, which is not set` }
      : {
          problem: `${envName} names a variable that is not set (the name is not repeated: it may be the secret itself)`,
        };
  }
  if (typeof inline === 'string' && isGiven(inline)) return { value: inline.trim() };
  return { problem: `${name} or ${envName} is required` };
}

const USAGE_ERROR = Symbol.for('reseller/PluginUsageError');

/** An error of the operator's input to a plugin command: `reseller-admin` prints it with the command's help and exits 2. */
export function pluginUsageError(message: string): Error {
  return Object.assign(new Error(message), { [USAGE_ERROR]: true });
}

/** Recognised by brand: a plugin may bundle its own copy of this module. */
export function isPluginUsageError(value: unknown): value is Error {
  return value instanceof Error && (value as unknown as Record<symbol, unknown>)[USAGE_ERROR] === true;
}

const NOT_CONFIGURED = Symbol.for('reseller/PluginNotConfigured');

/** A loader state, not a plugin: see `RegistrarPluginDefinition.create`. */
export interface PluginNotConfigured {
  readonly [NOT_CONFIGURED]: true;
  readonly reason: string;
}

export function notConfigured(reason: string): PluginNotConfigured {
  return { [NOT_CONFIGURED]: true, reason };
}

/** Recognised by brand: a plugin may bundle its own copy of this module. */
export function isPluginNotConfigured(value: unknown): value is PluginNotConfigured {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[NOT_CONFIGURED] === true;
}

/** The one default export of a plugin's entry module. */
export function defineRegistrarPlugin<
  Options,
  Created extends RegistrarPlugin | PluginNotConfigured = RegistrarPlugin | PluginNotConfigured,
>(
  definition: Omit<RegistrarPluginDefinition<Options, Created>, typeof DEFINITION>,
): RegistrarPluginDefinition<Options, Created> {
  return { ...definition, [DEFINITION]: true };
}

/** Recognised by brand: a plugin may bundle its own copy of this module. */
export function isRegistrarPluginDefinition(value: unknown): value is RegistrarPluginDefinition<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINITION] === true;
}
