import type { Clock } from '../common/clock';
import type { EventBus } from '../common/events';
import type { Logger } from '../common/logger';
import { formatAmount } from '../common/money';
import type { UnitOfWork } from '../common/unit-of-work';
import { addDays, type ExpiringDomain } from '../domain/domain-expiry';
import type { JobCounts } from '../jobs/job-scheduler';
import { isoDay } from '../order/dates';
import type { WebhookEndpoint } from '../webhooks/webhook';
import { escapeHtml, type Mailer, type MailMessage } from './mailer';

export interface NotificationSettings {
  readonly currency: string;
  /** Where mail about operator-wide endpoints goes; none when unset. */
  readonly operatorEmail: string | undefined;
}

/** Plain text paragraphs, and the same as simple HTML. */
function message(
  to: string,
  subject: string,
  paragraphs: readonly string[],
  list: readonly string[] = [],
): MailMessage {
  const text = [...paragraphs, ...(list.length > 0 ? [list.map((l) => `- ${l}`).join('\n')] : [])].join('\n\n');
  const html = [
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    ...(list.length > 0 ? [`<ul>${list.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>`] : []),
  ].join('\n');
  return { to, subject, text: `${text}\n`, html };
}

/**
 * The platform's mail (docs/events.md#email): low credit, the daily digest of expiring domains,
 * a disabled webhook endpoint. Nothing is sent without a configured mailer; a mail that cannot be
 * sent is logged and holds up nothing else.
 */
export class Notifications {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: NotificationSettings,
  ) {}

  /** Mails the reseller when `credit.low` is published. */
  subscribe(events: EventBus): void {
    if (!this.mailer.isConfigured) return;
    events.on('credit.low', async ({ resellerId, balance, threshold }) => {
      const reseller = await this.uow.read.resellers.findById(resellerId);
      if (!reseller) return;
      const money = (minor: number) => `${formatAmount(minor)} ${this.settings.currency}`;
      await this.send(
        message(reseller.email, 'Your credit is running low', [
          `Your prepaid credit is ${money(balance)}, below the ${money(threshold)} you asked to be told about.`,
          'Orders that cost more than your balance are refused until you top up.',
        ]),
      );
    });
  }

  /** Mails an endpoint's owner that it was disabled. */
  endpointDisabled(endpoint: WebhookEndpoint, reason: string): void {
    if (!this.mailer.isConfigured) return;
    void (async () => {
      const to =
        endpoint.resellerId === null
          ? this.settings.operatorEmail
          : (await this.uow.read.resellers.findById(endpoint.resellerId))?.email;
      if (!to) return;
      await this.send(
        message(to, 'A webhook endpoint was disabled', [
          `We stopped sending events to ${endpoint.url} (${endpoint.id}): ${reason}.`,
          'Deliveries that were waiting are kept as dead; once the endpoint works again, enable it and replay them.',
        ]),
      );
    })().catch((error: unknown) => this.logger.error({ err: error }, 'mailing about a disabled endpoint failed'));
  }

  /**
   * Once a day per reseller: the domains expiring in the next 30 days (no mail when there are
   * none). Each digest is claimed before it is sent and recorded as sent after; one the mail
   * server refused is tried again by the job's next run that day.
   */
  async dailyDigest(): Promise<JobCounts> {
    if (!this.mailer.isConfigured) return { sent: 0 };
    const now = this.clock.now();
    const today = isoDay(now);
    const byReseller = new Map<string, ExpiringDomain[]>();
    for (const d of await this.uow.read.expiry.expiring(today, addDays(today, 30), 10_000))
      byReseller.set(d.resellerId, [...(byReseller.get(d.resellerId) ?? []), d]);
    let sent = 0;
    let failed = 0;
    // Longer than a send can take: taken over only from a process that died while sending.
    const leaseUntil = new Date(now.getTime() + 15 * 60_000);
    for (const [resellerId, domains] of byReseller) {
      const reseller = await this.uow.read.resellers.findById(resellerId);
      if (!reseller) continue;
      if (!(await this.uow.run(({ expiry }) => expiry.claimDigest(resellerId, today, now, leaseUntil)))) continue;
      const count = domains.length === 1 ? '1 domain expires' : `${domains.length} domains expire`;
      const mail = message(
        reseller.email,
        `${count} within 30 days`,
        [`${count} within the next 30 days. Renew them before then to keep them:`],
        domains.map((d) => `${d.domain}: ${d.expiryDate}`),
      );
      try {
        await this.mailer.send(mail);
      } catch (error) {
        this.logger.error({ err: error, resellerId }, 'the expiry digest could not be sent; the next run tries again');
        const reason = error instanceof Error ? error.message : String(error);
        await this.uow.run(({ expiry }) => expiry.digestFailed(resellerId, today, reason));
        failed++;
        continue;
      }
      await this.uow.run(({ expiry }) => expiry.digestSent(resellerId, today, this.clock.now()));
      sent++;
    }
    return failed > 0 ? { sent, failed } : { sent };
  }

  private async send(mail: MailMessage): Promise<void> {
    try {
      await this.mailer.send(mail);
    } catch (error) {
      this.logger.error({ err: error, subject: mail.subject }, 'a mail could not be sent');
    }
  }
}
