import { hash, verify } from '@node-rs/argon2';
import type { PasswordHasher } from '../../core/operator/operator';

/** argon2id with OWASP's parameters (19 MiB, 2 passes, 1 lane); the PHC string carries them, so they can rise later. */
export const argon2idHasher: PasswordHasher = {
  // @node-rs/argon2's default algorithm is argon2id (its const enum cannot be imported under isolatedModules).
  hash: (password) => hash(password, { memoryCost: 19_456, timeCost: 2, parallelism: 1 }),
  verify: async (stored, password) => {
    try {
      return await verify(stored, password);
    } catch {
      return false;
    }
  },
};
