import { isUniqueViolation } from '../db/errors';

/**
 * Runs one insert and answers whether it added the row: false, not an error, when a unique key
 * already holds one (another process or an earlier request was first), so the caller decides.
 */
export async function insertUnlessPresent(insert: PromiseLike<unknown>): Promise<boolean> {
  try {
    await insert;
    return true;
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
}
