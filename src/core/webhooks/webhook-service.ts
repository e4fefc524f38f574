import { recordChange } from '../audit/audit-log';
import { EVENT_TYPES, type EventType } from '../../client/events';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import { ulid } from '../common/ids';
import type { UnitOfWork } from '../common/unit-of-work';
import type { SecretBox } from '../reseller/reseller';
import { newWebhookSecret } from './signature';
import { isForbiddenAddress } from './target-address';
import type { DeliveryFilter, StoredEndpoint, WebhookDelivery, WebhookEndpoint } from './webhook';

/** A rotated-out secret keeps signing beside the new one this long, so receivers can switch without losing a delivery. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3_600_000;

export interface WebhookServiceSettings {
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: plain http and loopback or private addresses (local use and tests). */
  readonly allowInsecureTargets: boolean;
}

/** Whose endpoint: a reseller's (its own events) or the operator's (every reseller's). */
export type EndpointOwner = { readonly resellerId: string } | 'operator';

const publicEndpoint = ({
  sealedSecret: _s,
  previousSealedSecret: _p,
  previousSecretUntil: _u,
  ...endpoint
}: StoredEndpoint): WebhookEndpoint => endpoint;

/**
 * Webhook endpoints and their deliveries, as the CLI, the console and the portal manage them. A
 * call that names a reseller only ever sees that reseller's endpoints and deliveries: another's
 * are `not_found`, the same as missing ones.
 */
export class WebhookService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    private readonly settings: WebhookServiceSettings,
  ) {}

  /** A new endpoint; its secret is in the answer and never shown again. */
  async add(
    owner: EndpointOwner,
    urlInput: string,
    eventTypes?: readonly string[],
  ): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const url = this.checkUrl(urlInput);
    const types = eventTypes && eventTypes.length > 0 ? checkEventTypes(eventTypes) : null;
    const resellerId = owner === 'operator' ? null : owner.resellerId;
    if (resellerId !== null && !(await this.uow.read.resellers.findById(resellerId)))
      throw new DomainError('not_found', 'no such reseller');
    const secret = newWebhookSecret();
    const endpoint: StoredEndpoint = {
      id: `whe_${ulid()}`,
      resellerId,
      url,
      eventTypes: types,
      status: 'enabled',
      disabledReason: null,
      failingSince: null,
      createdAt: this.clock.now(),
      sealedSecret: this.secrets.seal(secret),
      previousSealedSecret: null,
      previousSecretUntil: null,
    };
    await this.uow.run(async ({ webhooks, audit }) => {
      await webhooks.insertEndpoint(endpoint);
      await recordChange(audit, this.clock, {
        action: 'webhook.add',
        subject: endpointSubject(endpoint),
        after: publicEndpoint(endpoint),
      });
    });
    return { endpoint: publicEndpoint(endpoint), secret };
  }

  /** A reseller's endpoints, the operator's (null), or all (undefined). */
  async list(resellerId?: string | null): Promise<WebhookEndpoint[]> {
    return (await this.uow.read.webhooks.listEndpoints(resellerId)).map(publicEndpoint);
  }

  async endpoint(id: string, resellerId?: string): Promise<WebhookEndpoint> {
    return publicEndpoint(await this.stored(id, resellerId));
  }

  /** A new secret; the previous one keeps signing beside it for 24 hours. */
  async rotateSecret(
    id: string,
    resellerId?: string,
  ): Promise<{ endpoint: WebhookEndpoint; secret: string; previousSecretUntil: Date }> {
    const stored = await this.stored(id, resellerId);
    const secret = newWebhookSecret();
    const until = new Date(this.clock.now().getTime() + PREVIOUS_SECRET_GRACE_MS);
    await this.uow.run(async ({ webhooks, audit }) => {
      await webhooks.rotateSecret(stored.id, this.secrets.seal(secret), { sealed: stored.sealedSecret, until });
      await recordChange(audit, this.clock, {
        action: 'webhook.secret.rotate',
        subject: endpointSubject(stored),
        after: { previousSecretValidUntil: until.toISOString() },
      });
    });
    return { endpoint: publicEndpoint(stored), secret, previousSecretUntil: until };
  }

  /** Removes the endpoint and its deliveries; nothing more is sent to it. */
  async remove(id: string, resellerId?: string): Promise<void> {
    const stored = await this.stored(id, resellerId);
    await this.uow.run(async ({ webhooks, audit }) => {
      await webhooks.deleteEndpoint(stored.id);
      await recordChange(audit, this.clock, {
        action: 'webhook.remove',
        subject: endpointSubject(stored),
        before: publicEndpoint(stored),
      });
    });
  }

  /** Sends to a disabled endpoint again (its dead deliveries can then be replayed). */
  async enable(id: string, resellerId?: string): Promise<WebhookEndpoint> {
    const stored = await this.stored(id, resellerId);
    await this.uow.run(async ({ webhooks, audit }) => {
      await webhooks.enable(stored.id);
      await recordChange(audit, this.clock, {
        action: 'webhook.enable',
        subject: endpointSubject(stored),
        before: { status: stored.status, disabledReason: stored.disabledReason },
        after: { status: 'enabled' },
      });
    });
    return { ...publicEndpoint(stored), status: 'enabled', disabledReason: null, failingSince: null };
  }

  /** Deliveries, newest first; a reseller's call sees its own endpoints' only. */
  async deliveries(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    if (filter.endpointId) await this.stored(filter.endpointId, filter.resellerId);
    return this.uow.read.webhooks.listDeliveries({ ...filter, limit: Math.min(filter.limit ?? 100, 1000) });
  }

  /** A dead delivery sent again, with the same `webhook-id` (the event's id). */
  async replay(deliveryId: string, resellerId?: string): Promise<WebhookDelivery> {
    const delivery = await this.uow.read.webhooks.findDelivery(deliveryId);
    if (!delivery) throw new DomainError('not_found', `no delivery ${deliveryId}`);
    const endpoint = await this.stored(delivery.endpointId, resellerId).catch(() => {
      throw new DomainError('not_found', `no delivery ${deliveryId}`);
    });
    if (delivery.status !== 'dead')
      throw new DomainError(
        'conflict',
        `delivery ${deliveryId} is ${delivery.status}; only a dead delivery is replayed`,
      );
    if (endpoint.status !== 'enabled')
      throw new DomainError('conflict', `endpoint ${endpoint.id} is disabled; enable it first`);
    const at = this.clock.now();
    await this.uow.run(async ({ webhooks, audit }) => {
      if (!(await webhooks.replay(deliveryId, at)))
        throw new DomainError('conflict', `delivery ${deliveryId} is no longer dead`);
      await recordChange(audit, this.clock, {
        action: 'webhook.delivery.replay',
        subject: endpointSubject(endpoint),
        after: { deliveryId, eventId: delivery.eventId },
      });
    });
    return { ...delivery, status: 'pending', attempts: 0, nextAttemptAt: at };
  }

  private async stored(id: string, resellerId?: string): Promise<StoredEndpoint> {
    const endpoint = await this.uow.read.webhooks.findEndpoint(String(id ?? '').trim());
    if (!endpoint || (resellerId !== undefined && endpoint.resellerId !== resellerId))
      throw new DomainError('not_found', `no webhook endpoint ${id}`);
    return endpoint;
  }

  /** https only, no credentials, no loopback or private address literal (names are checked again when connecting). */
  private checkUrl(input: string): string {
    let url: URL;
    try {
      url = new URL(String(input ?? '').trim());
    } catch {
      throw new DomainError(
        'validation_failed',
        'the webhook URL must be an absolute URL like https://example.com/hooks',
      );
    }
    const insecure = this.settings.allowInsecureTargets;
    if (url.protocol !== 'https:' && !(insecure && url.protocol === 'http:'))
      throw new DomainError('validation_failed', 'the webhook URL must start with https://');
    if (url.username || url.password)
      throw new DomainError('validation_failed', 'the webhook URL must not carry a user name or password');
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (
      !insecure &&
      (host === 'localhost' || host.endsWith('.localhost') || (isLiteral(host) && isForbiddenAddress(host)))
    )
      throw new DomainError(
        'validation_failed',
        'the webhook URL must not point at a loopback, private or link-local address',
      );
    if (url.href.length > 2048)
      throw new DomainError('validation_failed', 'the webhook URL is longer than 2048 characters');
    url.hash = '';
    return url.href;
  }
}

const isLiteral = (host: string) => /^[\d.]+$/.test(host) || host.includes(':');

function checkEventTypes(input: readonly string[]): EventType[] {
  const types = [...new Set(input.map((t) => String(t).trim()).filter((t) => t.length > 0))];
  const unknown = types.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0)
    throw new DomainError(
      'validation_failed',
      `unknown event type${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; the types are ${EVENT_TYPES.join(', ')}`,
    );
  return types as EventType[];
}

const endpointSubject = (endpoint: { readonly id: string }) => ({ kind: 'webhook', id: endpoint.id });
