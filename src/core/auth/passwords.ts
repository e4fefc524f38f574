import { randomBytes } from 'node:crypto';
import type { PasswordHasher } from '../operator/operator';

/**
 * People's passwords (operators' and resellers'), hashed through the `PasswordHasher` port
 * (argon2id). A check against an account without a password, or no account at all, verifies a
 * dummy hash instead, so a failure takes as long either way and the time does not tell which
 * emails have accounts.
 */
export class Passwords {
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly hasher: PasswordHasher) {}

  /** The hash to store; argon2 takes its time, so callers hash before their transaction. */
  hash(password: string): Promise<string> {
    return this.hasher.hash(password);
  }

  /** Whether `given` is the password of `storedHash`; false, after as long, when there is none. */
  async matches(storedHash: string | null | undefined, given: string): Promise<boolean> {
    if (storedHash) return this.hasher.verify(storedHash, given);
    this.dummyHash ??= this.hasher.hash(randomBytes(16).toString('hex'));
    await this.hasher.verify(await this.dummyHash, given);
    return false;
  }
}
