import { type Actor, auditEntry } from '../audit/audit-log';
import { OneTimeLinks } from '../auth/one-time-links';
import { newRecoveryCodes } from '../auth/recovery-codes';
import type { Passwords } from '../auth/passwords';
import type { SecondFactorCodes, SecondFactorSecret } from '../auth/second-factor';
import type { UnitOfWork } from '../common/unit-of-work';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import { ulid } from '../common/ids';
import { normaliseEmail } from '../common/validation';
import {
  OPERATOR_ROLES,
  type Operator,
  type OperatorChange,
  type OperatorRecord,
  type OperatorRepository,
  type OperatorRole,
  publicOperator,
} from './operator';

export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 1024;

export interface SetPasswordLink {
  readonly operator: Operator;
  /** The token of the one-time link (shown once; only its hash is stored). */
  readonly token: string;
  readonly expiresAt: Date;
}

/**
 * The console's accounts: created by `reseller-admin operator create` with a one-time link to set
 * the password; argon2id passwords of at least 12 characters; TOTP with recovery codes. Every change
 * is audited with its actor.
 */
export class OperatorService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly passwords: Passwords,
    private readonly codes: SecondFactorCodes,
    private readonly clock: Clock,
  ) {}

  async create(actor: Actor, emailInput: string, roleInput: string): Promise<SetPasswordLink> {
    const email = normaliseEmail(emailInput);
    const role = parseRole(roleInput);
    const now = this.clock.now();
    return this.uow.run(async ({ operators, oneTimeLinks, audit }) => {
      if (await operators.findByEmail(email))
        throw new DomainError('conflict', `an operator with email ${email} already exists`);
      const record: OperatorRecord = {
        id: ulid(),
        email,
        role,
        passwordHash: null,
        sealedTotpSecret: null,
        recoveryCodeHashes: [],
        disabledAt: null,
        createdAt: now,
      };
      await operators.insert(record);
      const link = await new OneTimeLinks(oneTimeLinks, this.clock).issue(SET_PASSWORD, record.id);
      const operator = publicOperator(record);
      await audit.append(
        auditEntry({ action: 'operator.create', subject: subjectOf(operator), after: operator }, now, actor),
      );
      return { operator, ...link };
    });
  }

  /** A new one-time link to set the password (the old password keeps working until it is used). */
  async passwordLink(actor: Actor, email: string): Promise<SetPasswordLink> {
    return this.uow.run(async ({ operators, oneTimeLinks, audit }) => {
      const record = await byEmailRecord(operators, email);
      const link = await new OneTimeLinks(oneTimeLinks, this.clock).issue(SET_PASSWORD, record.id);
      await audit.append(
        auditEntry({ action: 'operator.password_link', subject: subjectOf(record) }, this.clock.now(), actor),
      );
      return { operator: publicOperator(record), ...link };
    });
  }

  async list(): Promise<Operator[]> {
    return (await this.uow.read.operators.list()).map(publicOperator);
  }

  async byId(id: string): Promise<Operator | undefined> {
    const record = await this.uow.read.operators.findById(id);
    return record ? publicOperator(record) : undefined;
  }

  async byEmail(email: string): Promise<Operator> {
    return publicOperator(await byEmailRecord(this.uow.read.operators, email));
  }

  /** The operator a usable set-password link is for (the form shows its email). */
  async linkHolder(token: string): Promise<Operator | undefined> {
    const id = await new OneTimeLinks(this.uow.read.oneTimeLinks, this.clock).peek(SET_PASSWORD, token);
    return id ? this.byId(id) : undefined;
  }

  /** Sets the password through a one-time link; the link then stops working. */
  async setPassword(token: string, password: string, confirmation: string): Promise<Operator> {
    checkPassword(password, confirmation);
    // Hashed before the transaction: argon2 takes its time, and a transaction is kept short.
    const passwordHash = await this.passwords.hash(password);
    return this.uow.run(async ({ operators, oneTimeLinks, audit }) => {
      const id = await new OneTimeLinks(oneTimeLinks, this.clock).use(SET_PASSWORD, token);
      const record = id ? await operators.findById(id) : undefined;
      if (!record)
        throw new DomainError('validation_failed', 'This link is not valid: it has expired or was used already');
      if (record.disabledAt) throw new DomainError('forbidden', 'This operator account is disabled');
      await operators.update(record.id, { passwordHash });
      const operator = publicOperator({ ...record, passwordHash: 'set' });
      await audit.append(
        auditEntry(
          { action: 'operator.password_set', subject: subjectOf(record) },
          this.clock.now(),
          operatorActor(operator),
        ),
      );
      return operator;
    });
  }

  /**
   * The operator whose email and password these are, if it may sign in; undefined otherwise (one
   * answer for an unknown email, a wrong password, a disabled account or one without a password).
   */
  async checkPassword(emailInput: string, password: string): Promise<Operator | undefined> {
    let email: string;
    try {
      email = normaliseEmail(emailInput);
    } catch {
      email = '';
    }
    const record = email ? await this.uow.read.operators.findByEmail(email) : undefined;
    const given = String(password ?? '').slice(0, MAX_PASSWORD_LENGTH);
    const matches = await this.passwords.matches(record?.passwordHash, given);
    return matches && record && !record.disabledAt ? publicOperator(record) : undefined;
  }

  /** A new TOTP secret and the URI for an authenticator app; stored only once `enrol` confirms a code. */
  newSecondFactor(operator: Operator): SecondFactorSecret & { sealed: string } {
    return this.codes.newSecret(operator.email);
  }

  /** The secret being enrolled, as the enrolment page shows it (typed into an authenticator app, or its URI). */
  describeSecondFactor(sealedSecret: string, operator: Operator): SecondFactorSecret {
    return this.codes.describe(sealedSecret, operator.email);
  }

  /** Stores the secret once a code from it is right; returns the recovery codes (shown once). */
  async enrol(operatorId: string, sealedSecret: string, code: string): Promise<string[]> {
    const step = this.codes.confirmedStep(sealedSecret, code);
    if (step === null)
      throw new DomainError('validation_failed', 'That code is not right; check the time on your device and try again');
    const { codes, hashes } = newRecoveryCodes();
    await this.uow.run(async ({ operators, audit }) => {
      const record = await activeRecord(operators, operatorId);
      await operators.update(record.id, { sealedTotpSecret: sealedSecret, recoveryCodeHashes: hashes });
      // The code that confirmed the secret does not sign in again.
      await operators.useTotpStep(record.id, step);
      await audit.append(
        auditEntry(
          { action: 'operator.second_factor.enrol', subject: subjectOf(record) },
          this.clock.now(),
          operatorActor(record),
        ),
      );
    });
    return codes;
  }

  /**
   * True when the code is the operator's current TOTP code not used before, or one of its unused
   * recovery codes (then used up). A TOTP code works once: a code seen over a shoulder or replayed
   * from a captured request within its 30 seconds is refused.
   */
  async checkSecondFactor(operatorId: string, code: string): Promise<boolean> {
    const record = await activeRecord(this.uow.read.operators, operatorId);
    if (!record.sealedTotpSecret) return false;
    const given = this.codes.read(record.sealedTotpSecret, code);
    if ('totpStep' in given) {
      const step = given.totpStep;
      return step !== null && this.uow.run(({ operators }) => operators.useTotpStep(record.id, step));
    }
    const hash = given.recoveryHash;
    if (!record.recoveryCodeHashes.includes(hash)) return false;
    return this.uow.run(async ({ operators, audit }) => {
      const used = await operators.useRecoveryCode(record.id, hash);
      if (used)
        await audit.append(
          auditEntry(
            {
              action: 'operator.recovery_code.used',
              subject: subjectOf(record),
              after: { remaining: record.recoveryCodeHashes.length - 1 },
            },
            this.clock.now(),
            operatorActor(record),
          ),
        );
      return used;
    });
  }

  async disable(actor: Actor, email: string): Promise<Operator> {
    const disabledAt = this.clock.now();
    return this.change(actor, email, 'operator.disable', (record) => (record.disabledAt ? undefined : { disabledAt }));
  }

  async enable(actor: Actor, email: string): Promise<Operator> {
    return this.change(actor, email, 'operator.enable', () => ({ disabledAt: null }));
  }

  /** Removes the second factor: the operator enrols again at its next sign-in. */
  async resetSecondFactor(actor: Actor, email: string): Promise<Operator> {
    return this.change(actor, email, 'operator.second_factor.reset', () => ({
      sealedTotpSecret: null,
      recoveryCodeHashes: [],
    }));
  }

  /** One change of an operator with its audit entry, in one transaction; `undefined` from `change`: nothing to do. */
  private change(
    actor: Actor,
    email: string,
    action: string,
    changeOf: (record: OperatorRecord) => OperatorChange | undefined,
  ): Promise<Operator> {
    return this.uow.run(async ({ operators, audit }) => {
      const record = await byEmailRecord(operators, email);
      const change = changeOf(record);
      if (!change) return publicOperator(record);
      await operators.update(record.id, change);
      const after = publicOperator({ ...record, ...change });
      await audit.append(
        auditEntry(
          { action, subject: subjectOf(record), before: publicOperator(record), after },
          this.clock.now(),
          actor,
        ),
      );
      return after;
    });
  }
}

const SET_PASSWORD = 'set_operator_password';

async function byEmailRecord(operators: OperatorRepository, emailInput: string): Promise<OperatorRecord> {
  const record = await operators.findByEmail(normaliseEmail(emailInput));
  if (!record) throw new DomainError('not_found', `no operator has email ${String(emailInput).trim().toLowerCase()}`);
  return record;
}

async function activeRecord(operators: OperatorRepository, id: string): Promise<OperatorRecord> {
  const record = await operators.findById(id);
  if (!record || record.disabledAt) throw new DomainError('forbidden', 'This operator account is disabled');
  return record;
}

export function parseRole(input: string): OperatorRole {
  const role = String(input ?? '').trim() as OperatorRole;
  if (!OPERATOR_ROLES.includes(role)) throw new DomainError('validation_failed', 'role must be admin or viewer');
  return role;
}

/** At least 12 characters (NIST SP 800-63B: length, not composition rules), typed the same twice. */
export function checkPassword(password: string, confirmation: string): void {
  if (typeof password !== 'string' || [...password].length < MIN_PASSWORD_LENGTH)
    throw new DomainError('validation_failed', `The password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new DomainError('validation_failed', `The password must have at most ${MAX_PASSWORD_LENGTH} characters`);
  if (password !== confirmation) throw new DomainError('validation_failed', 'The two passwords are not the same');
}

export const operatorActor = (operator: Pick<Operator, 'id' | 'email'>, extra: Partial<Actor> = {}): Actor => ({
  kind: 'operator',
  id: operator.id,
  label: operator.email,
  ...extra,
});

const subjectOf = (operator: { readonly id: string }) => ({ kind: 'operator', id: operator.id });
