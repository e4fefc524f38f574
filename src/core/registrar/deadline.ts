import { randomUUID } from 'node:crypto';
import { DomainError } from '../shared/errors';
import type { CallContext } from './plugin';

/**
 * Runs one registrar call under a deadline. At the deadline the call's signal is aborted and
 * the platform stops waiting, whether or not the plugin honours the signal: a registrar can
 * never hold a request (or a reseller's money) hostage.
 */
export async function withDeadline<T>(
  registrarId: string,
  timeoutMs: number,
  call: (ctx: CallContext) => Promise<T>,
  transactionId: string = randomUUID(),
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new DomainError(
        'registrar_timeout',
        `Registrar ${registrarId} did not answer within ${timeoutMs} ms`,
      );
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([call({ signal: controller.signal, transactionId }), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
