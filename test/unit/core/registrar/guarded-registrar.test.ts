import {
  guardRegistrar,
  guardRegistrars,
  type RegistrarCall,
  type RegistrarFault,
} from '../../../../src/core/registrar/guarded-registrar';
import type { CallContext, RegisterInput, RegistrarPlugin } from '../../../../src/core/registrar/plugin';
import { supports } from '../../../../src/core/registrar/plugin';
import { fakeDirectory, recordingLogger } from '../../../support/fakes';
import { cannedRegistrar } from '../../../support/canned-registrar';

const registration: RegisterInput = {
  domain: 'a.com',
  period: 1,
  nameservers: [],
  contacts: {},
  addons: {},
  fields: {},
};
const faultOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: RegistrarFault) => e,
  );

describe('the guarded registrar', () => {
  const setup = (
    plugin: RegistrarPlugin = cannedRegistrar({ id: 'acme', without: ['transferSync'] }),
    timeoutMs = 1000,
  ) => {
    const calls: RegistrarCall[] = [];
    const logger = recordingLogger();
    const registrars = guardRegistrars(fakeDirectory(plugin), {
      timeoutMs,
      logger,
      observer: { registrarCall: (c) => calls.push(c) },
    });
    return { plugin, calls, logger, guarded: registrars.get(plugin.id) };
  };

  describe('observation', () => {
    it('records every call by plugin, capability, operation and outcome', async () => {
      const { calls, guarded } = setup();
      await expect(guarded.registrarLock!.get({ domain: 'a.com' })).resolves.toEqual({ ok: true, locked: true });
      await guarded.checkAvailability(['a.com']);
      expect(calls.map(({ seconds: _s, ...c }) => c)).toEqual([
        { plugin: 'acme', capability: 'registrarLock', operation: 'get', outcome: 'ok' },
        { plugin: 'acme', capability: 'checkAvailability', operation: 'checkAvailability', outcome: 'ok' },
      ]);
      expect(calls.every((c) => c.seconds >= 0)).toBe(true);
    });

    it('tells refusals, faults, deadlines and unusable answers apart', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      plugin.eppCode = { get: async () => ({ ok: false, reason: 'unavailable', message: 'no' }) };
      plugin.contacts = {
        get: async () => {
          throw new Error('socket hang up');
        },
        save: async () => 'yes' as never,
      };
      plugin.registrarLock = { get: () => new Promise(() => undefined), save: async () => ({ ok: true }) };
      const { calls, guarded } = setup(plugin, 20);
      await guarded.eppCode!.get({ domain: 'a.com' });
      await expect(guarded.contacts!.get({ domain: 'a.com' })).rejects.toMatchObject({
        kind: 'error',
        message: 'Registrar acme failed: socket hang up',
        detail: 'socket hang up',
      });
      await expect(guarded.registrarLock!.get({ domain: 'a.com' })).rejects.toMatchObject({
        kind: 'timeout',
        message: 'Registrar acme did not answer within 20 ms',
      });
      await expect(guarded.contacts!.save({ domain: 'a.com', contacts: {} })).rejects.toMatchObject({
        kind: 'malformed',
        message: 'Registrar acme gave an answer to contacts.save that cannot be used',
      });
      expect(calls.map((c) => `${c.capability}.${c.operation}:${c.outcome}`)).toEqual([
        'eppCode.get:unavailable',
        'contacts.get:error',
        'registrarLock.get:timeout',
        'contacts.save:malformed',
      ]);
    });
  });

  describe('capabilities', () => {
    it('offers only the capabilities in use, so every fallback still applies', () => {
      const { guarded } = setup();
      expect(supports(guarded, 'transferSync')).toBe(false);
      expect(supports(guarded, 'domainSync')).toBe(true);
    });

    it('leaves out a capability the operator switched off although the plugin implements it', () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      const guarded = guardRegistrar(
        { id: 'acme', plugin, capabilities: ['nameservers'] },
        { timeoutMs: 1000, logger: recordingLogger() },
      );
      expect(guarded.capabilities).toEqual(['nameservers']);
      expect(supports(guarded, 'nameservers')).toBe(true);
      expect(supports(guarded, 'domainSync')).toBe(false);
    });
  });

  describe('calls', () => {
    it('forwards calls to the real object, so a class plugin with #private fields works', async () => {
      class PrivateRegistrar implements RegistrarPlugin {
        readonly id = 'private';
        #expiry = '2027-11-21';
        #seen: string[] = [];
        readonly nameservers = {
          get: async (input: { domain: string }) => ({ ok: true as const, nameservers: this.#nameservers(input) }),
          save: async () => ({ ok: true as const }),
        };
        #nameservers(input: { domain: string }) {
          this.#seen.push(input.domain);
          return ['ns1.example.net'];
        }
        async checkAvailability(domains: readonly string[]) {
          return domains.map((domain) => ({ domain, status: 'available' as const }));
        }
        async register(input: RegisterInput, ctx: CallContext) {
          this.#seen.push(`${input.domain}:${ctx.transactionId}`);
          return { ok: true as const, expiryDate: this.#expiry };
        }
        async renew() {
          return { ok: true as const, expiryDate: this.#expiry };
        }
        get seen() {
          return this.#seen;
        }
      }
      const plugin = new PrivateRegistrar();
      const { guarded } = setup(plugin);
      expect(await guarded.register(registration, { transactionId: 'order-1' })).toEqual({
        ok: true,
        expiryDate: '2027-11-21',
      });
      expect(await guarded.renew({ domain: 'a.com', period: 1, currentExpiryDate: null })).toEqual({
        ok: true,
        expiryDate: '2027-11-21',
      });
      expect(await guarded.nameservers!.get({ domain: 'a.com' })).toEqual({
        ok: true,
        nameservers: ['ns1.example.net'],
      });
      expect(plugin.seen).toEqual(['a.com:order-1', 'a.com']);
    });

    it('returns a definite refusal as it is, for orders to settle money on', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      plugin.register = async () => ({ ok: false, reason: 'unavailable', message: 'taken' });
      expect(await setup(plugin).guarded.register(registration)).toEqual({
        ok: false,
        reason: 'unavailable',
        message: 'taken',
      });
    });

    it('makes a synchronous throw a fault like any other', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      plugin.renew = () => {
        throw new Error('not today');
      };
      const fault = await faultOf(setup(plugin).guarded.renew({ domain: 'a.com', period: 1, currentExpiryDate: null }));
      expect(fault).toMatchObject({ kind: 'error', operation: 'renew', detail: 'not today' });
    });

    it('aborts the call signal at the deadline', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      let signal: AbortSignal | undefined;
      plugin.register = (_input, ctx) => {
        signal = ctx.signal;
        return new Promise(() => undefined);
      };
      await expect(setup(plugin, 20).guarded.register(registration)).rejects.toMatchObject({ kind: 'timeout' });
      expect(signal?.aborted).toBe(true);
    });

    it('fails every call of a plugin installed but not configured, with the reason, keeping its capabilities', async () => {
      const guarded = guardRegistrar(
        {
          id: 'epp',
          plugin: undefined,
          capabilities: ['nameservers'],
          notConfigured: 'the epp plugin is not configured',
        },
        { timeoutMs: 1000, logger: recordingLogger() },
      );
      expect(supports(guarded, 'nameservers')).toBe(true);
      await expect(guarded.checkAvailability(['a.test'])).rejects.toMatchObject({
        kind: 'error',
        detail: 'the epp plugin is not configured',
      });
      await expect(guarded.nameservers!.get({ domain: 'a.test' })).rejects.toMatchObject({ kind: 'error' });
    });

    it('refuses an id that is not installed', () => {
      const registrars = guardRegistrars(fakeDirectory(), { timeoutMs: 1000, logger: recordingLogger() });
      expect(() => registrars.get('gone')).toThrow(/gone is not installed/);
    });
  });

  describe('batch answers', () => {
    it('checks availability name by name: a malformed entry is dropped and logged, the others kept', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      plugin.checkAvailability = async () => [
        { domain: 'A.COM', status: 'registered' },
        null as never,
        { domain: 42 as never, status: 'available' },
        { domain: 'b.com', status: 'weird' as never },
      ];
      const { guarded, logger } = setup(plugin);
      expect(await guarded.checkAvailability(['a.com', 'b.com'])).toEqual([
        { domain: 'a.com', status: 'registered' },
        { domain: 'b.com', status: 'unknown' },
      ]);
      expect(logger.entries).toContainEqual(
        expect.objectContaining({
          msg: 'registrar answer: malformed elements dropped',
          obj: expect.objectContaining({ dropped: 2 }),
        }),
      );
    });

    it('drops a name whose premium fields are malformed, never reading them as "not premium" (issue 26 item 2)', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      plugin.checkAvailability = async () => [
        { domain: 'string.com', status: 'available', isPremium: 'true' as never, premiumPrice: { register: 100_000 } },
        { domain: 'one.com', status: 'available', isPremium: 1 as never, premiumPrice: { register: 100_000 } },
        { domain: 'zero.com', status: 'available', isPremium: true, premiumPrice: { register: 0 } },
        { domain: 'part.com', status: 'available', isPremium: true, premiumPrice: { register: 500, renew: 1.5 } },
        { domain: 'fine.com', status: 'available', isPremium: true, premiumPrice: { register: 500 } },
        { domain: 'standard.com', status: 'available', isPremium: false, premiumPrice: { register: 0 } },
      ];
      expect(await setup(plugin).guarded.checkAvailability(['x.com'])).toEqual([
        { domain: 'fine.com', status: 'available', isPremium: true, premiumPrice: { register: 500 } },
        { domain: 'standard.com', status: 'available', isPremium: false, premiumPrice: { register: 0 } },
      ]);
    });

    it('drops every entry of a name listed twice in one answer (issue 26 item 3); strict mode fails', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      plugin.checkAvailability = async () => [
        { domain: 'twice.com', status: 'available', isPremium: false },
        { domain: 'once.com', status: 'available' },
        { domain: 'TWICE.com', status: 'available', isPremium: true, premiumPrice: { register: 100_000 } },
      ];
      const { guarded, logger } = setup(plugin);
      expect(await guarded.checkAvailability(['twice.com', 'once.com'])).toEqual([
        { domain: 'once.com', status: 'available' },
      ]);
      expect(logger.entries).toContainEqual(
        expect.objectContaining({
          obj: expect.objectContaining({ problems: ['twice.com: listed 2 times in one answer'] }),
        }),
      );
      const strict = guardRegistrar(
        { id: 'acme', plugin, capabilities: [] },
        { timeoutMs: 1000, logger: recordingLogger(), strict: true },
      );
      await expect(strict.checkAvailability(['twice.com'])).rejects.toMatchObject({
        kind: 'malformed',
        detail: 'twice.com: listed 2 times in one answer',
      });
    });

    it('in strict mode (the conformance kit), fails on a malformed element instead', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      plugin.suggestions = { suggest: async () => [{ domain: 'a.com', score: 500 }] };
      const guarded = guardRegistrar(
        { id: 'acme', plugin, capabilities: ['suggestions'] },
        { timeoutMs: 1000, logger: recordingLogger(), strict: true },
      );
      await expect(guarded.suggestions!.suggest({ term: 'a', tlds: ['.com'], limit: 5 })).rejects.toMatchObject({
        kind: 'malformed',
        detail: expect.stringMatching(/^0: score/),
      });
    });

    it('cannot use a list answer that is not a list', async () => {
      const plugin = cannedRegistrar({ id: 'acme' });
      plugin.checkAvailability = async () => 'all free' as never;
      await expect(setup(plugin).guarded.checkAvailability(['a.com'])).rejects.toMatchObject({ kind: 'malformed' });
    });
  });
});
