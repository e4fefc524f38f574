import type { GuardedRegistrars } from '../registrar/guarded-registrar';
import type { RegistrarGateway } from '../registrar/registrar-gateway';
import { supports, type CapabilityName } from '../registrar/plugin';
import { cleanMessage } from '../registrar/registrar-answers';
import type { Logger } from '../common/logger';
import type {
  DomainLookup,
  OrderRegistrar,
  PremiumAnswer,
  PremiumQuestion,
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
 * The order flow's registrar port over the guarded registrars, with one rule of its own, for
 * money: every fault (a throw, the deadline, an unusable answer) and every "accepted, finishing
 * later" is `unknown`, never a refusal, because a call we stopped waiting for may still have
 * happened. The order id is the call's transaction id (a plugin may pass it upstream as an
 * idempotency key or an EPP clTRID). Whose a name is comes from the gateway's lookup chain.
 */
export class GatewayOrderRegistrar implements OrderRegistrar {
  constructor(
    private readonly registrars: GuardedRegistrars,
    private readonly gateway: RegistrarGateway,
    private readonly logger: Logger,
  ) {}

  isAvailable(registrarId: string): boolean {
    return this.registrars.has(registrarId);
  }

  isDisabled(registrarId: string): boolean {
    return this.registrars.isDisabled(registrarId);
  }

  supports(registrarId: string, capability: CapabilityName): boolean {
    return this.registrars.has(registrarId) && supports(this.registrars.get(registrarId), capability);
  }

  register(registrarId: string, input: RegistrationRequest, transactionId: string): Promise<RegistrarAnswer> {
    return this.answer(registrarId, 'register', transactionId, () =>
      this.registrars.get(registrarId).register(input, { transactionId }),
    );
  }

  transfer(registrarId: string, input: TransferRequest, transactionId: string): Promise<RegistrarAnswer> {
    return this.answer(registrarId, 'transfer', transactionId, async () => {
      const registrar = this.registrars.get(registrarId);
      if (!supports(registrar, 'transfer'))
        return { ok: false, reason: 'refused', message: 'the registrar does not support transfers' };
      return registrar.transfer.transfer(input, { transactionId });
    });
  }

  renew(registrarId: string, input: RenewalRequest, transactionId: string): Promise<RegistrarAnswer> {
    return this.answer(registrarId, 'renew', transactionId, () =>
      this.registrars.get(registrarId).renew(input, { transactionId }),
    );
  }

  async lookup(registrarId: string, domain: string): Promise<DomainLookup> {
    try {
      const found = await this.gateway.ownership(registrarId, domain);
      return found.kind === 'unknown' ? { kind: 'unknown', message: registrarMessage(found.message) } : found;
    } catch (error) {
      return { kind: 'unknown', message: this.fault(registrarId, 'lookup', error) };
    }
  }

  async premium(
    registrarId: string,
    domain: string,
    question: PremiumQuestion = { action: 'register', period: 1 },
  ): Promise<PremiumAnswer> {
    try {
      const price = await this.gateway.namePrice(registrarId, domain, question.action, question.period);
      return price.kind === 'no_answer' ? { kind: 'unknown', message: registrarMessage(price.message) } : price;
    } catch (error) {
      return { kind: 'unknown', message: this.fault(registrarId, 'premium', error) };
    }
  }

  async transferStatus(registrarId: string, domain: string): Promise<TransferStatus> {
    try {
      const registrar = this.registrars.get(registrarId);
      if (!supports(registrar, 'transferSync')) {
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
      const result = await registrar.transferSync.sync({ domain });
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
