import { createHash } from 'node:crypto';
import type { CallContext, PluginStore, RegistrarOutcome } from 'domain-reseller';
import * as frames from './frames';
import type { Nameservers } from './frames';
import { address, domainName, hostName, InputError } from './input';
import type { EppOptions } from './options';
import { type Failure, refusalOf, refused, SUCCESS, settled } from './outcomes';
import type { RegistryCalls } from './registry-calls';
import type { NegotiatedServices } from './session-pool';
import { child, children, NS } from './xml';

/** Nameservers as RFC 5732 host objects or host attributes, and child nameservers (hosts under the domain). */
export class HostObjects {
  constructor(
    private readonly calls: RegistryCalls,
    private readonly hostMode: EppOptions['hostMode'],
    private readonly store: PluginStore,
  ) {}

  usesHostObjects(services: NegotiatedServices): boolean {
    return this.hostMode !== 'attributes' && services.objectUris.includes(NS.host);
  }

  nameserversFor(services: NegotiatedServices, hosts: string[]): { hostObjects?: string[]; hostAttributes?: string[] } {
    const unique = [...new Set(hosts)];
    if (this.hostMode === 'objects' && !services.objectUris.includes(NS.host))
      throw new InputError('hostMode is "objects" but the registry does not offer host objects');
    return this.usesHostObjects(services) ? { hostObjects: unique } : { hostAttributes: unique };
  }

  /** Host objects must exist before a domain names them: creates the external ones that do not. */
  async ensureHosts(domain: string, hosts: readonly string[], ctx: CallContext): Promise<Failure | undefined> {
    if (hosts.length === 0) return undefined;
    const check = await this.calls.run((t) => frames.hostCheckFrame(hosts, t), ctx, true);
    if (check.code !== 1000) return refusalOf(check, 'the nameservers');
    const missing = children(child(check.resData, NS.host, 'chkData'), NS.host, 'cd')
      .map((cd) => child(cd, NS.host, 'name'))
      .filter((n) => ['1', 'true'].includes(n?.attrs.avail ?? ''))
      .map((n) => n!.text.trim().toLowerCase());
    for (const host of missing) {
      if (host === domain || host.endsWith(`.${domain}`)) {
        return refused(
          `${host} is under ${domain} and does not exist yet: register it as a child nameserver (with its IP address) first`,
        );
      }
      const created = await this.calls.run((t) => frames.hostCreateFrame(host, [], t), ctx, false);
      // 2302: created meanwhile by someone else, which is what we wanted.
      if (!SUCCESS.has(created.code) && created.code !== 2302) return refusalOf(created, `nameserver ${host}`);
    }
    return undefined;
  }

  /** Replaces the domain's nameservers with `nameservers`, sending only what changes. */
  async save(input: { domain: string; nameservers: readonly string[] }, ctx: CallContext): Promise<RegistrarOutcome> {
    const name = domainName(input.domain);
    const services = await this.calls.services(ctx.signal);
    const found = await this.calls.ownInfo(name, ctx);
    if (!found.ok) return found;
    const isObjects = this.usesHostObjects(services);
    const current = isObjects ? found.info.hostObjects : found.info.hostAttributes;
    const wanted = [...new Set(input.nameservers.map(hostName))];
    const add = wanted.filter((h) => !current.includes(h));
    const rem = current.filter((h) => !wanted.includes(h));
    if (add.length === 0 && rem.length === 0) return { ok: true };
    if (isObjects) {
      const missing = await this.ensureHosts(name, add, ctx);
      if (missing) return missing;
    }
    const ns = (list: string[]): Nameservers | undefined =>
      list.length ? (isObjects ? { hostObjects: list } : { hostAttributes: list }) : undefined;
    const response = await this.calls.run(
      (t) => frames.domainUpdateFrame({ name, add: { nameservers: ns(add) }, rem: { nameservers: ns(rem) } }, t),
      ctx,
      false,
    );
    return settled(response, name);
  }

  async registerChild(
    input: { domain: string; host: string; ipAddress: string },
    ctx: CallContext,
  ): Promise<RegistrarOutcome> {
    const { name, host } = await this.childHost(input, ctx);
    const response = await this.calls.run(
      (t) => frames.hostCreateFrame(host, [address(input.ipAddress)], t),
      ctx,
      false,
    );
    const outcome = settled(response, host);
    if (outcome.ok) await this.store.set(childHostKey(name, host), host);
    return outcome;
  }

  async modifyChild(
    input: { domain: string; host: string; currentIpAddress: string; newIpAddress: string },
    ctx: CallContext,
  ): Promise<RegistrarOutcome> {
    const { host } = await this.childHost(input, ctx);
    const response = await this.calls.run(
      (t) =>
        frames.hostUpdateFrame(host, { add: [address(input.newIpAddress)], rem: [address(input.currentIpAddress)] }, t),
      ctx,
      false,
    );
    return settled(response, host);
  }

  async deleteChild(input: { domain: string; host: string }, ctx: CallContext): Promise<RegistrarOutcome> {
    const { name, host } = await this.childHost(input, ctx);
    const response = await this.calls.run((t) => frames.hostDeleteFrame(host, t), ctx, false);
    const outcome = settled(response, host);
    if (outcome.ok || response.code === 2303) await this.store.delete(childHostKey(name, host));
    return outcome;
  }

  /**
   * Some registries ignore `hosts="all"` and list no subordinate hosts in `<domain:infData>`: then
   * the child nameservers are the ones this plugin created under the domain (kept in the plugin's
   * store), those `<host:check>` still finds at the registry.
   */
  async knownChildHosts(domain: string, ctx: CallContext): Promise<string[]> {
    const keys = await this.store.keys(childHostKey(domain));
    const hosts = (await Promise.all(keys.map((k) => this.store.get<string>(k)))).filter(
      (h): h is string => typeof h === 'string',
    );
    if (hosts.length === 0) return [];
    const check = await this.calls.run((t) => frames.hostCheckFrame(hosts, t), ctx, true);
    if (check.code !== 1000) return hosts;
    const existing = new Set(
      children(child(check.resData, NS.host, 'chkData'), NS.host, 'cd')
        .map((cd) => child(cd, NS.host, 'name'))
        .filter((n) => ['0', 'false'].includes(n?.attrs.avail ?? ''))
        .map((n) => n!.text.trim().toLowerCase()),
    );
    return hosts.filter((h) => existing.has(h)).sort();
  }

  private async childHost(
    input: { domain: string; host: string },
    ctx: CallContext,
  ): Promise<{ name: string; host: string }> {
    const name = domainName(input.domain);
    const host = hostName(input.host);
    if (!host.endsWith(`.${name}`)) throw new InputError(`${host} is not under ${name}; a child nameserver must be`);
    const services = await this.calls.services(ctx.signal);
    if (!this.usesHostObjects(services))
      throw new InputError(
        'this registry uses host attributes: give child nameserver addresses with the nameservers instead',
      );
    return { name, host };
  }
}

/**
 * The plugin-store key of a child nameserver, `child-hosts/<domain>/<host>` (a prefix of it lists a
 * domain's); long names are hashed to stay within the store's 191-character keys.
 */
function childHostKey(domain: string, host?: string): string {
  const short = (text: string, max: number) =>
    text.length <= max ? text : createHash('sha256').update(text).digest('hex').slice(0, 32);
  return `child-hosts/${short(domain, 80)}/${host === undefined ? '' : short(host, 90)}`;
}
