export type ResellerStatus = 'active' | 'suspended';

export interface Reseller {
  readonly id: string;
  readonly email: string;
  readonly groupId: string;
  readonly status: ResellerStatus;
  readonly createdAt: Date;
}

/** What authentication needs of a reseller: the row plus the API key sealed at rest. */
export interface ResellerCredentials extends Reseller {
  readonly sealedApiKey: string;
}

export interface ResellerGroup {
  readonly id: string;
  readonly name: string;
  /** Registrant contact used when an order carries none (spec 2.3). */
  readonly defaultContact: Record<string, string> | null;
}

export interface ResellerRepository {
  findByEmail(email: string): Promise<ResellerCredentials | undefined>;
  findById(id: string): Promise<Reseller | undefined>;
  list(): Promise<Reseller[]>;
  insert(reseller: ResellerCredentials): Promise<void>;
  setStatus(id: string, status: ResellerStatus): Promise<void>;
  setSealedApiKey(id: string, sealedApiKey: string): Promise<void>;
}

export interface GroupRepository {
  findByName(name: string): Promise<ResellerGroup | undefined>;
  findById(id: string): Promise<ResellerGroup | undefined>;
  list(): Promise<ResellerGroup[]>;
  insert(group: ResellerGroup): Promise<void>;
  setDefaultContact(id: string, contact: Record<string, string> | null): Promise<void>;
}

/**
 * Seals API keys at rest. The server must hold each key to verify the HMAC (spec 5), so keys are
 * encrypted under the operator's master key rather than hashed.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}
