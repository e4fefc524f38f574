import { readTransferData, type TransferData } from './domain-info';
import type { EppResponse } from './responses';
import { child, childText, NS } from './xml';

/** One message taken off the registry's poll queue (RFC 5730 section 2.9.2.3). */
export interface PollMessage {
  readonly id: string;
  readonly date?: string;
  readonly text?: string;
  /** The domain the message is about, when it names one. */
  readonly domain?: string;
  readonly transfer?: TransferData;
  /** `<domain:panData>`: the outcome of an action the registry had left pending (create, renew, delete …). */
  readonly pendingAction?: {
    readonly isApproved: boolean;
    readonly clientTransactionId?: string;
    readonly date?: string;
  };
}

export function readPollMessage(response: EppResponse): PollMessage {
  const transfer = readTransferData(response.resData);
  const pan = child(response.resData, NS.domain, 'panData');
  const panName = child(pan, NS.domain, 'name');
  return {
    id: response.queue?.id ?? '',
    date: response.queue?.date,
    text: response.queue?.message,
    domain: transfer?.name ?? panName?.text.trim().toLowerCase(),
    transfer,
    pendingAction: pan
      ? {
          isApproved: ['1', 'true'].includes(panName?.attrs.paResult ?? ''),
          clientTransactionId: childText(child(pan, NS.domain, 'paTRID'), NS.epp, 'clTRID'),
          date: childText(pan, NS.domain, 'paDate'),
        }
      : undefined,
  };
}

const MAX_DOMAINS = 10_000;

/**
 * What the poll queue told us, per domain, for transfer sync and sync to use. In memory and per
 * process: the registry's own answers (transfer query, info) stay the authority; poll messages
 * only settle what those cannot show any more (a transfer that finished or failed, a domain gone).
 */
export class PollEvents {
  private readonly byDomain = new Map<string, PollMessage[]>();

  record(message: PollMessage): void {
    if (!message.domain) return;
    const list = this.byDomain.get(message.domain) ?? [];
    list.push(message);
    this.byDomain.delete(message.domain);
    this.byDomain.set(message.domain, list.slice(-10));
    if (this.byDomain.size > MAX_DOMAINS) this.byDomain.delete(this.byDomain.keys().next().value as string);
  }

  /** The latest transfer news about a domain, if any. */
  latestTransfer(domain: string): TransferData | undefined {
    return [...(this.byDomain.get(domain) ?? [])].reverse().find((m) => m.transfer)?.transfer;
  }

  messages(domain: string): readonly PollMessage[] {
    return this.byDomain.get(domain) ?? [];
  }
}
