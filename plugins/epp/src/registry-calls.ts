import type { CallContext } from 'domain-reseller';
import { type DomainInfo, readDomainInfo } from './domain-info';
import * as frames from './frames';
import { type Failure, refusalOf, refused } from './outcomes';
import type { EppResponse } from './responses';
import type { CommandOptions, NegotiatedServices } from './session-pool';

/** What the registrar needs of the session pool (a fake can stand in for it). */
export interface CommandPort {
  command(build: (clTRID: string) => string, options: CommandOptions): Promise<EppResponse>;
  services(signal: AbortSignal): Promise<NegotiatedServices>;
  close(): Promise<void>;
}

/** The commands every part of the registrar sends: one frame at a time, and the domain info they start from. */
export class RegistryCalls {
  constructor(
    private readonly pool: CommandPort,
    readonly clientId: string,
  ) {}

  /**
   * Sends one command built for its clTRID; the pool gives every frame a new one that starts
   * with the call's transaction id (for an order, the order id), so the registry's logs lead back to it.
   */
  run(build: (clTRID: string) => string, ctx: CallContext, isReadOnly: boolean): Promise<EppResponse> {
    return this.pool.command(build, { reference: ctx.transactionId, signal: ctx.signal, isReadOnly });
  }

  services(signal: AbortSignal): Promise<NegotiatedServices> {
    return this.pool.services(signal);
  }

  async info(name: string, ctx: CallContext): Promise<{ ok: true; info: DomainInfo } | Failure> {
    const response = await this.run((t) => frames.domainInfoFrame(name, t), ctx, true);
    if (response.code !== 1000) return refusalOf(response, name);
    const info = readDomainInfo(response);
    if (!info) throw new Error(`the registry answered info for ${name} without domain data`);
    return { ok: true, info };
  }

  /** Info of a domain we sponsor; someone else's is a refusal (its data is not ours to show or change). */
  async ownInfo(name: string, ctx: CallContext): Promise<{ ok: true; info: DomainInfo } | Failure> {
    const found = await this.info(name, ctx);
    if (found.ok && found.info.sponsor !== this.clientId) return refused(`${name} is sponsored by another registrar`);
    return found;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
