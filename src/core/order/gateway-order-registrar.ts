import {
  AvailabilityList,
  DomainSync,
  Information,
  Registered,
  TransferStarted,
  TransferSync,
  cleanMessage,
} from '../registrar/registrar-answers';
import type { RegistrarGateway } from '../registrar/registrar-gateway';
import { supports, type CapabilityName } from '../registrar/plugin';
import type { RegistrarDirectory } from '../registrar/registrar-directory';
import type { Logger } from '../shared/logger';
import type {
  DomainLookup,
  OrderRegistrar,
  RegistrarAnswer,
  RegistrationRequest,
  RenewalRequest,
  TransferRequest,
  TransferStatus,
} from './order-registrar';

/** Registrar text goes back to resellers: bounded, one line, never starting with "curl" (docs/api.md#errors-and-status-codes). */
export function registrarMessage(text: unknown): string {
  const line = cleanMessage(text);
  return /^curl/i.test(line) ? `registrar: ${line}` : line;
}

/**
 * The order flow's registrar port over the registrar gateway: every call under the registrar
 * deadline with its answer checked as untrusted input, the order id as the call's transaction id
 * (a plugin may pass it upstream as an idempotency key or an EPP clTRID), and every throw,
 * cut-off or unusable answer turned into `unknown`, never into a refusal, because a call we
 * stopped waiting for may still have happened.
 */
export class GatewayOrderRegistrar implements OrderRegistrar {
  constructor(
    private readonly directory: RegistrarDirectory,
    private readonly gateway: RegistrarGateway,
    private readonly logger: Logger,
  ) {}

  isAvailable(registrarId: string): boolean {
    return this.directory.has(registrarId);
  }

  supports(registrarId: string, capability: CapabilityName): boolean {
    return this.directory.has(registrarId) && supports(this.directory.get(registrarId), capability);
  }

  register(registrarId: string, input: RegistrationRequest, transactionId: string): Promise<RegistrarAnswer> {
    return this.answer(registrarId, 'register', transactionId, () =>
      this.gateway.invoke(
        registrarId,
        'register',
        Registered,
        (plugin, ctx) => plugin.register(input, ctx),
        transactionId,
      ),
    );
  }

  transfer(registrarId: string, input: TransferRequest, transactionId: string): Promise<RegistrarAnswer> {
    if (!this.supports(registrarId, 'transfer')) {
      return Promise.resolve({
        kind: 'refused',
        reason: 'refused',
        message: 'the registrar does not support transfers',
      });
    }
    return this.answer(registrarId, 'transfer', transactionId, () =>
      this.gateway.invoke(
        registrarId,
        'transfer.transfer',
        TransferStarted,
        (plugin, ctx) => plugin.transfer!.transfer(input, ctx),
        transactionId,
      ),
    );
  }

  renew(registrarId: string, input: RenewalRequest, transactionId: string): Promise<RegistrarAnswer> {
    return this.answer(registrarId, 'renew', transactionId, () =>
      this.gateway.invoke(registrarId, 'renew', Registered, (plugin, ctx) => plugin.renew(input, ctx), transactionId),
    );
  }

  async lookup(registrarId: string, domain: string): Promise<DomainLookup> {
    try {
      if (this.supports(registrarId, 'domainSync')) {
        const result = await this.gateway.invoke(registrarId, 'domainSync.sync', DomainSync, (plugin, ctx) =>
          plugin.domainSync!.sync({ domain }, ctx),
        );
        if (result.ok) {
          if (result.transferredAway || result.cancelled) return { kind: 'not_ours' };
          return { kind: 'ours', ...(result.expiryDate && { expiryDate: result.expiryDate }) };
        }
        if (result.reason !== 'pending') return { kind: 'not_ours' };
        return { kind: 'unknown', message: registrarMessage(result.message) };
      }
      if (this.supports(registrarId, 'domainInformation')) {
        const result = await this.gateway.invoke(registrarId, 'domainInformation.get', Information, (plugin, ctx) =>
          plugin.domainInformation!.get({ domain }, ctx),
        );
        if (result.ok)
          return { kind: 'ours', ...(result.expiryDate && { expiryDate: result.expiryDate.slice(0, 10) }) };
        if (result.reason !== 'pending') return { kind: 'not_ours' };
        return { kind: 'unknown', message: registrarMessage(result.message) };
      }
      // Availability alone cannot say whose a registered name is: only "available" is conclusive.
      const [availability] = await this.gateway.invoke(
        registrarId,
        'checkAvailability',
        AvailabilityList,
        (plugin, ctx) => plugin.checkAvailability([domain], ctx),
      );
      if (availability?.domain.toLowerCase() === domain && availability.status === 'available')
        return { kind: 'not_ours' };
      return {
        kind: 'unknown',
        message: `the registrar reports ${domain} as ${availability?.status ?? 'unknown'} and cannot say whose it is`,
      };
    } catch (error) {
      return { kind: 'unknown', message: this.fault(registrarId, 'lookup', error) };
    }
  }

  async transferStatus(registrarId: string, domain: string): Promise<TransferStatus> {
    try {
      if (!this.supports(registrarId, 'transferSync')) {
        const found = await this.lookup(registrarId, domain);
        if (found.kind === 'ours')
          return { kind: 'completed', ...(found.expiryDate && { expiryDate: found.expiryDate }) };
        return {
          kind: 'unknown',
          message:
            found.kind === 'unknown'
              ? found.message
              : 'the registrar cannot report transfer progress and the domain is not in our account yet',
        };
      }
      const result = await this.gateway.invoke(registrarId, 'transferSync.sync', TransferSync, (plugin, ctx) =>
        plugin.transferSync!.sync({ domain }, ctx),
      );
      if (!result.ok) {
        // A definite refusal of the transfer query: the registrar has no transfer of this name.
        if (result.reason !== 'pending') return { kind: 'not_found', message: registrarMessage(result.message) };
        return { kind: 'unknown', message: registrarMessage(result.message) };
      }
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
    call: () => Promise<
      { ok: true; expiryDate?: string } | { ok: false; reason: 'unavailable' | 'refused' | 'pending'; message: string }
    >,
  ): Promise<RegistrarAnswer> {
    try {
      const outcome = await call();
      if (outcome.ok) return { kind: 'done', ...(outcome.expiryDate && { expiryDate: outcome.expiryDate }) };
      if (outcome.reason === 'pending') return { kind: 'unknown', message: registrarMessage(outcome.message) };
      return { kind: 'refused', reason: outcome.reason, message: registrarMessage(outcome.message) };
    } catch (error) {
      return { kind: 'unknown', message: this.fault(registrarId, operation, error, transactionId) };
    }
  }

  private fault(registrarId: string, operation: string, error: unknown, transactionId?: string): string {
    const message = registrarMessage(error instanceof Error ? error.message : error);
    this.logger.warn(
      { registrar: registrarId, operation, transactionId, err: message },
      'registrar call ended without a definite answer',
    );
    return message;
  }
}
