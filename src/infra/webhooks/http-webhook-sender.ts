import { type LookupAddress, lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AttemptAnswer } from '../../core/webhooks/retry-schedule';
import { isForbiddenAddress } from '../../core/webhooks/target-address';
import type { WebhookSender } from '../../core/webhooks/delivery-worker';

/** A target refused when connecting (docs/events.md#ssrf). */
class ForbiddenTarget extends Error {}

/**
 * The address check runs inside the connection's own DNS lookup, so the address checked is the
 * address connected to: a name that resolved to a public address when the endpoint was saved and
 * to 127.0.0.1 now (DNS rebinding) is refused. Every address of the name must be allowed.
 */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const forbidden = addresses.find((a) => isForbiddenAddress(a.address));
    if (forbidden || addresses.length === 0)
      return callback(
        new ForbiddenTarget(
          `${hostname} resolves to ${forbidden?.address ?? 'nothing'}, which webhooks may not reach (loopback, private, link-local or reserved)`,
        ) as NodeJS.ErrnoException,
        '',
        0,
      );
    if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/**
 * Sends webhooks with Node's http client over keep-alive connections. Redirects are never
 * followed (a 3xx is a failed attempt); the body of the answer is read and dropped. With
 * `allowInsecureTargets` (WEBHOOK_ALLOW_INSECURE_TARGETS) plain http and any address are allowed.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly agents: { readonly http: http.Agent; readonly https: https.Agent };

  constructor(private readonly options: { readonly allowInsecureTargets: boolean; readonly maxSockets?: number }) {
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16, scheduling: 'lifo' as const };
    this.agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  }

  send(request: {
    url: string;
    headers: Readonly<Record<string, string>>;
    body: string;
    timeoutMs: number;
  }): Promise<AttemptAnswer> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve({ kind: 'error', error: 'the endpoint URL cannot be read' });
    }
    const insecure = this.options.allowInsecureTargets;
    if (url.protocol !== 'https:' && !(insecure && url.protocol === 'http:'))
      return Promise.resolve({ kind: 'error', error: 'webhooks are sent over https only' });
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An address literal is connected to without a lookup: checked here.
    if (!insecure && isIP(host) !== 0 && isForbiddenAddress(host))
      return Promise.resolve({ kind: 'error', error: `${host} is an address webhooks may not reach` });
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<AttemptAnswer>((resolve) => {
      const body = Buffer.from(request.body);
      const req = client.request(
        url,
        {
          method: 'POST',
          agent: url.protocol === 'https:' ? this.agents.https : this.agents.http,
          headers: {
            ...request.headers,
            'content-length': String(body.length),
            'user-agent': 'domain-reseller-webhooks/1',
          },
          ...(insecure ? {} : { lookup: guardedLookup }),
          signal: AbortSignal.timeout(request.timeoutMs),
        },
        (res) => {
          const retryAfter = res.headers['retry-after'];
          res.resume();
          res.on('end', () =>
            resolve({ kind: 'response', status: res.statusCode ?? 0, ...(retryAfter ? { retryAfter } : {}) }),
          );
          res.on('error', (error) => resolve({ kind: 'error', error: error.message }));
        },
      );
      req.on('error', (error) =>
        resolve({
          kind: 'error',
          error:
            error.name === 'AbortError' || error.name === 'TimeoutError'
              ? `no answer within ${request.timeoutMs} ms`
              : error.message,
        }),
      );
      req.end(body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
