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
/** What `send` needs of an endpoint's URL, worked out once per URL. */
type Target =
  | { readonly refused: string }
  | { readonly client: typeof http | typeof https; readonly options: http.RequestOptions };

/** Endpoint URLs worked out, at most this many kept. */
const TARGET_CACHE_SIZE = 1000;

/**
 * Sends webhooks with Node's http client over keep-alive connections. Redirects are never
 * followed (a 3xx is a failed attempt); the body of the answer is read and dropped. With
 * `allowInsecureTargets` (WEBHOOK_ALLOW_INSECURE_TARGETS) plain http and any address are allowed.
 * An attempt that has no complete answer within its timeout is abandoned (its socket destroyed).
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly agents: { readonly http: http.Agent; readonly https: https.Agent };
  private readonly targets = new Map<string, Target>();

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
    const target = this.target(request.url);
    if ('refused' in target) return Promise.resolve({ kind: 'error', error: target.refused });
    return new Promise<AttemptAnswer>((resolve) => {
      let timedOut = false;
      const req = target.client.request({
        ...target.options,
        headers: {
          ...request.headers,
          'content-length': String(Buffer.byteLength(request.body)),
          'user-agent': 'domain-reseller-webhooks/1',
        },
      });
      // One timer for the whole attempt (connecting, sending, the answer and its body).
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, request.timeoutMs);
      const settle = (answer: AttemptAnswer) => {
        clearTimeout(timer);
        resolve(answer);
      };
      req.on('response', (res) => {
        const retryAfter = res.headers['retry-after'];
        res.resume();
        res.on('end', () =>
          settle({ kind: 'response', status: res.statusCode ?? 0, ...(retryAfter ? { retryAfter } : {}) }),
        );
        res.on('error', (error) =>
          settle({ kind: 'error', error: timedOut ? `no answer within ${request.timeoutMs} ms` : error.message }),
        );
        // A body cut short by the timeout ends with neither 'end' nor 'error' on some versions.
        res.on('close', () => {
          if (!res.complete) settle({ kind: 'error', error: `no answer within ${request.timeoutMs} ms` });
        });
      });
      req.on('error', (error) =>
        settle({ kind: 'error', error: timedOut ? `no answer within ${request.timeoutMs} ms` : error.message }),
      );
      req.end(request.body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** The URL's client and request options, or why it is refused before connecting. */
  private target(url: string): Target {
    let target = this.targets.get(url);
    if (target === undefined) {
      target = this.readTarget(url);
      if (this.targets.size >= TARGET_CACHE_SIZE) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  private readTarget(text: string): Target {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return { refused: 'the endpoint URL cannot be read' };
    }
    const insecure = this.options.allowInsecureTargets;
    if (url.protocol !== 'https:' && !(insecure && url.protocol === 'http:'))
      return { refused: 'webhooks are sent over https only' };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // An address literal is connected to without a lookup: checked here.
    if (!insecure && isIP(host) !== 0 && isForbiddenAddress(host))
      return { refused: `${host} is an address webhooks may not reach` };
    const secure = url.protocol === 'https:';
    return {
      client: secure ? https : http,
      options: {
        protocol: url.protocol,
        hostname: host,
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        // Basic credentials in the URL are sent, as Node's client sends them for a URL.
        ...(url.username || url.password
          ? { auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` }
          : {}),
        method: 'POST',
        agent: secure ? this.agents.https : this.agents.http,
        // The address is checked in the connection's own lookup (DNS rebinding).
        ...(insecure ? {} : { lookup: guardedLookup }),
      },
    };
  }
}
