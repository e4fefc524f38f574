import { ulid } from 'ulid';
import type { SetTldInput } from '../../src/core/catalogue/catalogue-service';
import type { DomainRecord, DomainStatus, NewDomain } from '../../src/core/domain/domain';
import { parseDomainName } from '../../src/core/domain/domain-name';
import { TOKENS } from '../../src/core/tokens';
import type { ResellerModule } from '../../src/module';

/**
 * A reseller group selling `.com` (one year: 10.00 unless given) through `registrar` (the sandbox
 * unless given): where most tests and benchmarks start before creating their resellers.
 */
export async function givenGroupSellingCom(
  module: Pick<ResellerModule, 'services'>,
  group: string,
  tld: Partial<Omit<SetTldInput, 'tld' | 'group'>> = {},
): Promise<void> {
  await module.services.resellers.createGroup(group);
  await module.services.catalogue.setTld({
    registrar: 'sandbox',
    prices: { register: { 1: 1000 } },
    ...tld,
    tld: '.com',
    group,
  });
}

export interface GivenDomain {
  /** The reseller's email; default the harness reseller. */
  readonly owner?: string;
  readonly registrar?: string;
  /** Register the name at the registrar first (default), as an order would have. */
  readonly atRegistrar?: boolean;
  readonly status?: DomainStatus;
  readonly expiryDate?: string | null;
  readonly addons?: NewDomain['addons'];
  readonly nameservers?: readonly string[];
  readonly transferLock?: boolean | null;
  /** Years registered at the registrar; default 1. */
  readonly period?: number;
}

/**
 * A domain the platform holds, as a completed order leaves it, without placing an order (so a test
 * can pick any status, expiry or owner): registered at the registrar through its guarded
 * registrar, then inserted through `DomainRepository.insert`.
 */
export async function givenDomain(
  module: ResellerModule,
  input: string,
  given: GivenDomain = {},
): Promise<DomainRecord> {
  const name = parseDomainName(input);
  const registrar = given.registrar ?? 'sandbox';
  const owner = await module.services.resellers.byEmail(given.owner ?? 'reseller@example.com');
  const nameservers = given.nameservers ?? ['ns1.sandbox.test', 'ns2.sandbox.test'];
  let expiryDate = given.expiryDate ?? null;
  if (given.atRegistrar !== false) {
    const outcome = await module.container
      .get(TOKENS.registrars)
      .get(registrar)
      .register({
        domain: name.ascii,
        period: given.period ?? 1,
        nameservers,
        contacts: { registrant: { firstname: 'Ada', lastname: 'Lovelace', email: 'ada@example.com' } },
        addons: {},
        fields: {},
      });
    if (!outcome.ok) throw new Error(`fixture: ${registrar} would not register ${name.ascii}: ${outcome.message}`);
    expiryDate = given.expiryDate === undefined ? outcome.expiryDate : given.expiryDate;
  }
  const domain: NewDomain = {
    id: ulid(),
    name: name.ascii,
    unicodeName: name.unicode,
    tld: `.${name.labels.slice(1).join('.')}`,
    resellerId: owner.id,
    registrar,
    status: given.status ?? 'Active',
    expiryDate,
    nameservers,
    transferLock: given.transferLock ?? null,
    addons: given.addons,
    createdAt: new Date('2026-11-21T10:00:00Z'),
  };
  await module.container.get(TOKENS.unitOfWork).run((repos) => repos.domains.insert(domain));
  return (await module.container.get(TOKENS.unitOfWork).read.domains.findByName(name.ascii))!;
}

export async function platformRecord(module: ResellerModule, input: string): Promise<DomainRecord | undefined> {
  return module.container.get(TOKENS.unitOfWork).read.domains.findByName(parseDomainName(input).ascii);
}
