import { withDeadline } from '../registrar/deadline';
import { supports, type CapabilityName, type RegistrarOutcome } from '../registrar/plugin';
import type { RegistrarDirectory } from '../registrar/registrar-directory';
import type { Logger } from '../shared/logger';
import type {
  DomainLookup, OrderRegistrar, RegistrarAnswer, RegistrationRequest, RenewalRequest, TransferRequest, TransferStatus,
} from './order-registrar';

const MAX_MESSAGE = 300;

/** Registrar text goes back to resellers: bounded, one line, never starting with "curl" (decisions.md). */
export function registrarMessage(text: unknown): string {
  const line = String(text ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_MESSAGE) || 'no reason given';
  return /^curl/i.test(line) ? `registrar: ${line}` : line;
}

/**
 * The order flow's registrar port over the installed plugins: every call under the registrar
 * deadline, the order id as the call's transaction id (a plugin may pass it upstream as an
 * idempotency key), and every throw or cut-off turned into `unknown` — never into a refusal,
 * because a call we stopped waiting for may still have happened.
 */
export class DirectoryOrderRegistrar implements OrderRegistrar {
  constructor(
    private readonly directory: RegistrarDirectory,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  isAvailable(registrarId: string): boolean {
    return this.directory.has(registrarId);
  }

  supports(registrarId: string, capability: CapabilityName): boolean {
    return this.directory.has(registrarId) && supports(this.directory.get(registrarId), capability);
  }

  register(registrarId: string, input: RegistrationRequest, transactionId: string): Promise<RegistrarAnswer> {
    return this.answer(registrarId, 'register', transactionId, (plugin, ctx) => plugin.register(input, ctx));
  }

  transfer(registrarId: string, input: TransferRequest, transactionId: string): Promise<RegistrarAnswer> {
    return this.answer(registrarId, 'transfer', transactionId, (plugin, ctx) => {
      if (!supports(plugin, 'transfer')) return Promise.resolve({ ok: false, reason: 'refused', message: 'the registrar does not support transfers' } as const);
      return plugin.transfer.transfer(input, ctx);
    });
  }

  renew(registrarId: string, input: RenewalRequest, transactionId: string): Promise<RegistrarAnswer> {
    return this.answer(registrarId, 'renew', transactionId, (plugin, ctx) => plugin.renew(input, ctx));
  }

  async lookup(registrarId: string, domain: string): Promise<DomainLookup> {
    try {
      const plugin = this.directory.get(registrarId);
      if (supports(plugin, 'domainSync')) {
        const result = await withDeadline(registrarId, this.timeoutMs, (ctx) => plugin.domainSync.sync({ domain }, ctx));
        if (result.ok) {
          if (result.transferredAway || result.cancelled) return { kind: 'not_ours' };
          return { kind: 'ours', ...(result.expiryDate && { expiryDate: result.expiryDate }) };
        }
        if (result.reason !== 'pending') return { kind: 'not_ours' };
        return { kind: 'unknown', message: registrarMessage(result.message) };
      }
      if (supports(plugin, 'domainInformation')) {
        const result = await withDeadline(registrarId, this.timeoutMs, (ctx) => plugin.domainInformation.get({ domain }, ctx));
        if (result.ok) return { kind: 'ours', ...(result.expiryDate && { expiryDate: result.expiryDate.slice(0, 10) }) };
        if (result.reason !== 'pending') return { kind: 'not_ours' };
        return { kind: 'unknown', message: registrarMessage(result.message) };
      }
      // Availability alone cannot say whose a registered name is: only "available" is conclusive.
      const [availability] = await withDeadline(registrarId, this.timeoutMs, (ctx) => plugin.checkAvailability([domain], ctx));
      if (availability?.status === 'available') return { kind: 'not_ours' };
      return { kind: 'unknown', message: `the registrar reports ${domain} as ${availability?.status ?? 'unknown'} and cannot say whose it is` };
    } catch (error) {
      return { kind: 'unknown', message: this.fault(registrarId, 'lookup', error) };
    }
  }

  async transferStatus(registrarId: string, domain: string): Promise<TransferStatus> {
    try {
      const plugin = this.directory.get(registrarId);
      if (!supports(plugin, 'transferSync')) {
        const found = await this.lookup(registrarId, domain);
        if (found.kind === 'ours') return { kind: 'completed', ...(found.expiryDate && { expiryDate: found.expiryDate }) };
        return { kind: 'unknown', message: found.kind === 'unknown' ? found.message : 'the registrar cannot report transfer progress and the domain is not in our account yet' };
      }
      const result = await withDeadline(registrarId, this.timeoutMs, (ctx) => plugin.transferSync.sync({ domain }, ctx));
      if (!result.ok) return { kind: 'unknown', message: registrarMessage(result.message) };
      if (result.completed) return { kind: 'completed', ...(result.expiryDate && { expiryDate: result.expiryDate }) };
      if (result.failed) return { kind: 'failed', reason: registrarMessage(result.reason) };
      return { kind: 'in_progress' };
    } catch (error) {
      return { kind: 'unknown', message: this.fault(registrarId, 'transferStatus', error) };
    }
  }

  private async answer(
    registrarId: string,
    operation: string,
    transactionId: string,
    call: (plugin: ReturnType<RegistrarDirectory['get']>, ctx: Parameters<Parameters<typeof withDeadline>[2]>[0]) => Promise<RegistrarOutcome<{ expiryDate?: string }>>,
  ): Promise<RegistrarAnswer> {
    try {
      const plugin = this.directory.get(registrarId);
      const outcome = await withDeadline(registrarId, this.timeoutMs, (ctx) => call(plugin, ctx), transactionId);
      if (outcome.ok) return { kind: 'done', ...(outcome.expiryDate && { expiryDate: outcome.expiryDate }) };
      if (outcome.reason === 'pending') return { kind: 'unknown', message: registrarMessage(outcome.message) };
      return { kind: 'refused', reason: outcome.reason, message: registrarMessage(outcome.message) };
    } catch (error) {
      return { kind: 'unknown', message: this.fault(registrarId, operation, error, transactionId) };
    }
  }

  private fault(registrarId: string, operation: string, error: unknown, transactionId?: string): string {
    const message = registrarMessage(error instanceof Error ? error.message : error);
    this.logger.warn({ registrar: registrarId, operation, transactionId, err: message }, 'registrar call ended without a definite answer');
    return message;
  }
}
