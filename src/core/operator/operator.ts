/** admin changes things; viewer (support staff) sees everything and changes nothing. */
export type OperatorRole = 'admin' | 'viewer';
export const OPERATOR_ROLES: readonly OperatorRole[] = ['admin', 'viewer'];

/** An operator as pages and commands see it: never a hash or a secret. */
export interface Operator {
  readonly id: string;
  readonly email: string;
  readonly role: OperatorRole;
  readonly hasPassword: boolean;
  readonly hasSecondFactor: boolean;
  readonly disabledAt: Date | null;
  readonly createdAt: Date;
}

export interface OperatorRecord {
  readonly id: string;
  readonly email: string;
  readonly role: OperatorRole;
  readonly passwordHash: string | null;
  readonly sealedTotpSecret: string | null;
  /** SHA-256 of each unused recovery code. */
  readonly recoveryCodeHashes: readonly string[];
  readonly disabledAt: Date | null;
  readonly createdAt: Date;
}

export type OperatorChange = Partial<
  Pick<OperatorRecord, 'passwordHash' | 'sealedTotpSecret' | 'recoveryCodeHashes' | 'disabledAt' | 'role'>
>;

/** Port: the operator accounts. */
export interface OperatorRepository {
  insert(operator: OperatorRecord): Promise<void>;
  findById(id: string): Promise<OperatorRecord | undefined>;
  findByEmail(email: string): Promise<OperatorRecord | undefined>;
  list(): Promise<OperatorRecord[]>;
  update(id: string, change: OperatorChange): Promise<void>;
  /** Removes one recovery code if it is still there; true for the one caller that did. */
  useRecoveryCode(id: string, codeHash: string): Promise<boolean>;
  /** Records a TOTP code's time step as used if it is later than the last one used; true for the one caller that did. */
  useTotpStep(id: string, step: number): Promise<boolean>;
}

/** Port: password hashing (argon2id in src/infra/crypto). */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(hash: string, password: string): Promise<boolean>;
}

/** Port: time-based one-time codes (RFC 6238). */
export interface TotpCodes {
  newSecret(): string;
  /** The otpauth:// URI an authenticator app reads. */
  uri(secret: string, account: string): string;
  /**
   * The time step (30-second counter) of the code when it is valid now, one step of drift allowed
   * either way; null when it is not. The caller refuses a step it has seen used.
   */
  stepOf(secret: string, code: string): number | null;
}

export function publicOperator(record: OperatorRecord): Operator {
  return {
    id: record.id,
    email: record.email,
    role: record.role,
    hasPassword: record.passwordHash !== null,
    hasSecondFactor: record.sealedTotpSecret !== null,
    disabledAt: record.disabledAt,
    createdAt: record.createdAt,
  };
}
