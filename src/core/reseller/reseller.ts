import type { Minor } from '../common/money';

/** `closed`: the account was ended by the operator (`reseller close`); like suspended, it cannot call the API. */
export type ResellerStatus = 'active' | 'suspended' | 'closed';

export interface Reseller {
  readonly id: string;
  readonly email: string;
  readonly groupId: string;
  readonly status: ResellerStatus;
  readonly createdAt: Date;
}

/** What authentication needs of a reseller: the row plus the API key sealed at rest and its IP allow-list. */
export interface ResellerCredentials extends Reseller {
  readonly sealedApiKey: string;
  /** CIDR ranges (canonical text) the reseller's requests must come from; empty allows every address. */
  readonly allowedNetworks: readonly string[];
}

/**
 * What authentication reads of a reseller in one statement: its credentials and, where the
 * repository can read it in that same statement, the balance of the platform's own credit ledger
 * (ADR 12: `GET /billing/credits` then needs no second read).
 */
export interface ResellerSignIn extends ResellerCredentials {
  readonly ledgerBalance?: Minor;
}

export interface ResellerGroup {
  readonly id: string;
  readonly name: string;
  /** Registrant contact used when an order carries none (docs/api.md#contacts-field). */
  readonly defaultContact: Record<string, string> | null;
}

export interface ResellerRepository {
  findByEmail(email: string): Promise<ResellerSignIn | undefined>;
  findById(id: string): Promise<Reseller | undefined>;
  /** `findById` that locks the row until the transaction ends (MariaDB: FOR UPDATE), reading its latest state. */
  lockById(id: string): Promise<Reseller | undefined>;
  list(): Promise<Reseller[]>;
  insert(reseller: ResellerCredentials): Promise<void>;
  setStatus(id: string, status: ResellerStatus): Promise<void>;
  setSealedApiKey(id: string, sealedApiKey: string): Promise<void>;
  setGroup(id: string, groupId: string): Promise<void>;
  /** Throws on an email another reseller has (the column is unique). */
  setEmail(id: string, email: string): Promise<void>;
  /** Adds a CIDR range to the allow-list; one already there stays as it is. Inside a transaction. */
  addAllowedNetwork(id: string, cidr: string): Promise<void>;
  /** False when the range was not on the list. Inside a transaction. */
  removeAllowedNetwork(id: string, cidr: string): Promise<boolean>;
  allowedNetworks(id: string): Promise<string[]>;
  /** Undefined when no reseller has this id. */
  lowCredit(id: string): Promise<LowCreditAlert | undefined>;
  /** Sets the threshold and the side of it the balance is on now. Inside a transaction. */
  setLowCredit(id: string, alert: LowCreditAlert): Promise<void>;
  /** The ids of the resellers that have a low-credit threshold. */
  withLowCreditThreshold(): Promise<string[]>;
  /**
   * Brings the reseller's low flag to the side of its threshold the balance is on **now** (not the
   * balance an event carried: events of one reseller may be dispatched out of order across
   * processes). Answers the balance and threshold only for the call that found it fallen below
   * (under the reseller row's lock: two processes settling the same fall publish one `credit.low`). Inside a
   * transaction.
   */
  settleCreditLow(id: string): Promise<{ balance: Minor; threshold: Minor } | undefined>;
}

/**
 * A reseller's low-credit alert: `credit.low` is published once each time the balance falls below
 * the threshold, again only after it has risen to the threshold or above.
 */
export interface LowCreditAlert {
  /** Integer minor units; null: no alert. */
  readonly threshold: Minor | null;
  /** Whether the balance was below the threshold when last looked at. */
  readonly isLow: boolean;
}

export interface GroupRepository {
  findByName(name: string): Promise<ResellerGroup | undefined>;
  findById(id: string): Promise<ResellerGroup | undefined>;
  list(): Promise<ResellerGroup[]>;
  insert(group: ResellerGroup): Promise<void>;
  setDefaultContact(id: string, contact: Record<string, string> | null): Promise<void>;
  rename(id: string, name: string): Promise<void>;
  /** Deletes the group with its prices, addon prices and premium rule (the caller checks it has no resellers). */
  delete(id: string): Promise<void>;
}

/**
 * Seals API keys at rest. The server must hold each key to verify the HMAC, so keys are
 * encrypted under the operator's master key rather than hashed.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /**
   * A MAC of `message` under a key derived from the master key for `purpose` alone: the same
   * message always gives the same MAC, and without the master key none can be made or checked, so
   * a stored one gives away nothing of a guessable input (an EPP code). Base64url.
   */
  mac(purpose: string, message: string): string;
}
