import { NO_ADDONS, type DomainRecord } from '../../src/core/domain/domain';
import type { CapabilityName, RegistrarCapabilities, RegistrarPlugin } from '../../src/core/registrar/plugin';

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A registrar fake with every capability, giving canned healthy answers and recording each call
 * by name. Tests replace one answer (`plugin.registrarLock = {...}`) or remove capabilities
 * (`without`), which is how the gateway's fallbacks are exercised.
 */
export function cannedRegistrar(
  options: { id?: string; without?: readonly CapabilityName[] } = {},
): Writable<RegistrarPlugin> & { calls: string[] } {
  const calls: string[] = [];
  const ok =
    <T extends object>(name: string, value: T) =>
    async () => {
      calls.push(name);
      return { ok: true as const, ...value };
    };
  const capabilities: Writable<RegistrarCapabilities> = {
    transfer: { transfer: ok('transfer.transfer', {}) },
    domainInformation: {
      get: ok('domainInformation.get', {
        nameservers: ['ns1.registrar.net', 'ns2.registrar.net'],
        transferLock: true,
        expiryDate: '2030-01-31',
      }),
    },
    nameservers: {
      get: ok('nameservers.get', { nameservers: ['ns1.registrar.net', 'ns2.registrar.net'] }),
      save: ok('nameservers.save', {}),
    },
    childHosts: {
      register: ok('childHosts.register', {}),
      modify: ok('childHosts.modify', {}),
      delete: ok('childHosts.delete', {}),
    },
    dnsRecords: { get: ok('dnsRecords.get', { records: [] }), save: ok('dnsRecords.save', {}) },
    registrarLock: { get: ok('registrarLock.get', { locked: true }), save: ok('registrarLock.save', {}) },
    idProtection: { save: ok('idProtection.save', {}) },
    eppCode: { get: ok('eppCode.get', { eppCode: 'EPP-CODE' }) },
    contacts: { get: ok('contacts.get', { contacts: {} }), save: ok('contacts.save', {}) },
    emailForwarding: { get: ok('emailForwarding.get', { forwards: [] }), save: ok('emailForwarding.save', {}) },
    delete: { delete: ok('delete.delete', {}) },
    release: { release: ok('release.release', {}) },
    domainSync: {
      sync: ok('domainSync.sync', { active: true, expired: false, transferredAway: false, expiryDate: '2030-01-31' }),
    },
    transferSync: { sync: ok('transferSync.sync', { completed: false, failed: false }) },
    suggestions: {
      suggest: async () => {
        calls.push('suggestions.suggest');
        return [];
      },
    },
    domainPricing: { price: ok('domainPricing.price', { isPremium: false }) },
    tldPricing: {
      prices: async () => {
        calls.push('tldPricing.prices');
        return [];
      },
    },
  };
  for (const name of options.without ?? []) delete capabilities[name];
  return {
    id: options.id ?? 'fake',
    calls,
    checkAvailability: async (domains) => {
      calls.push('checkAvailability');
      return domains.map((domain) => ({ domain, status: 'available' as const }));
    },
    register: ok('register', { expiryDate: '2027-11-21' }),
    renew: ok('renew', { expiryDate: '2028-11-21' }),
    ...capabilities,
  };
}

/** Installed plugins by id (the same fake directory the search tests use). */
export { fakeDirectory as directoryOf } from './fakes';

/** A platform domain record, as the repository returns it. */
export function aDomain(overrides: Partial<DomainRecord> = {}): DomainRecord {
  return {
    id: '01JDOMAIN0000000000000000',
    name: 'example.com',
    unicodeName: 'example.com',
    tld: '.com',
    resellerId: '01JRESELLER00000000000000',
    registrar: 'fake',
    status: 'Active',
    expiryDate: '2027-11-21',
    nameservers: ['ns1.platform.net', 'ns2.platform.net'],
    transferLock: null,
    addons: NO_ADDONS,
    createdAt: new Date('2026-11-21T10:00:00Z'),
    updatedAt: new Date('2026-11-21T10:00:00Z'),
    ...overrides,
  };
}
