import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { CallContext, RegistrarOutcome, RegistrarPlugin } from '../../src/core/registrar/plugin';

/**
 * A registrar whose registry is a JSON file, so a child process and the test share it: the child
 * registers (or not) and is killed; the test's reconciliation then asks the same "registry".
 * `onRegister` decides what happens to a registration or a transfer: 'register-then-hang' records
 * the name and never answers; 'hang' never answers and records nothing. Transfer sync reports a
 * recorded name as transferred in, and refuses one it has no record of (it never got a transfer).
 */
export class FileRegistrar implements RegistrarPlugin {
  readonly id = 'file';

  constructor(
    private readonly file: string,
    private readonly onRegister: 'register-then-hang' | 'hang' | 'succeed' = 'succeed',
    private readonly announce: (line: string) => void = () => undefined,
  ) {}

  private read(): Record<string, string> {
    return existsSync(this.file) ? JSON.parse(readFileSync(this.file, 'utf8')) : {};
  }

  async checkAvailability(domains: readonly string[]) {
    const registry = this.read();
    return domains.map((domain) => ({
      domain,
      status: registry[domain] ? ('registered' as const) : ('available' as const),
    }));
  }

  async register(
    input: { domain: string; period: number },
    _ctx: CallContext,
  ): Promise<RegistrarOutcome<{ expiryDate: string }>> {
    const expiryDate = `${2026 + input.period}-11-21`;
    if (this.onRegister !== 'hang')
      writeFileSync(this.file, JSON.stringify({ ...this.read(), [input.domain]: expiryDate }));
    if (this.onRegister === 'succeed') return { ok: true, expiryDate };
    this.announce(this.onRegister === 'hang' ? 'CALLED' : 'REGISTERED');
    return new Promise(() => undefined);
  }

  readonly transfer = {
    transfer: (input: { domain: string; period: number }, ctx: CallContext) => this.register(input, ctx),
  };

  readonly transferSync = {
    sync: async ({ domain }: { domain: string }) => {
      const expiryDate = this.read()[domain];
      if (!expiryDate) return { ok: false as const, reason: 'refused' as const, message: `no transfer of ${domain}` };
      return { ok: true as const, completed: true, failed: false, expiryDate };
    },
  };

  async renew(): Promise<RegistrarOutcome<{ expiryDate: string }>> {
    return { ok: false, reason: 'refused', message: 'not supported here' };
  }

  readonly domainSync = {
    sync: async ({ domain }: { domain: string }) => {
      const expiryDate = this.read()[domain];
      if (!expiryDate) return { ok: false as const, reason: 'refused' as const, message: 'not in our account' };
      return { ok: true as const, active: true, expired: false, transferredAway: false, expiryDate };
    },
  };
}
