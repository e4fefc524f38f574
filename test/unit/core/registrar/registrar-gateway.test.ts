import { guardRegistrars } from '../../../../src/core/registrar/guarded-registrar';
import { RegistrarGateway } from '../../../../src/core/registrar/registrar-gateway';
import type { CallContext } from '../../../../src/core/registrar/plugin';
import { aDomain, directoryOf, cannedRegistrar } from '../../../support/canned-registrar';
import { recordingLogger } from '../../../support/fakes';

const gatewayFor = (plugin: ReturnType<typeof cannedRegistrar>, timeoutMs = 1000) => {
  const logger = recordingLogger();
  const registrars = guardRegistrars(directoryOf(plugin), { timeoutMs, logger });
  return { gateway: new RegistrarGateway(registrars, logger), logger };
};

describe('RegistrarGateway', () => {
  describe('information', () => {
    it('asks a registrar that offers domainInformation, filling what it leaves out from the platform record', async () => {
      const plugin = cannedRegistrar();
      const { gateway } = gatewayFor(plugin);
      const info = await gateway.information(
        aDomain({ addons: { dnsManagement: true, emailForwarding: false, idProtection: true } }),
      );
      expect(info).toEqual({
        nameservers: ['ns1.registrar.net', 'ns2.registrar.net'],
        transferLock: true,
        expiryDate: '2030-01-31',
        registrationStatus: 'Active',
        idProtection: true,
        dnsManagement: true,
        emailForwarding: false,
        restorable: false,
        registrantEmail: undefined,
        extra: {},
        assembled: false,
      });
      expect(plugin.calls).toEqual(['domainInformation.get']);
    });

    it('without domainInformation, builds information from the nameservers, the lock and the platform record', async () => {
      const plugin = cannedRegistrar({ without: ['domainInformation'] });
      const { gateway } = gatewayFor(plugin);
      const info = await gateway.information(
        aDomain({
          status: 'Active',
          expiryDate: '2027-11-21',
          addons: { dnsManagement: false, emailForwarding: true, idProtection: true },
        }),
      );
      expect(info).toMatchObject({
        nameservers: ['ns1.registrar.net', 'ns2.registrar.net'],
        transferLock: true,
        expiryDate: '2027-11-21',
        registrationStatus: 'Active',
        idProtection: true,
        dnsManagement: false,
        emailForwarding: true,
        assembled: true,
      });
      expect(plugin.calls).toEqual(['nameservers.get', 'registrarLock.get']);
    });

    it.each([
      ['refuses', async () => ({ ok: false as const, reason: 'refused' as const, message: 'lock service down' })],
      [
        'throws',
        async () => {
          throw new Error('socket hang up');
        },
      ],
      [
        'never answers',
        (_input: unknown, ctx: CallContext) =>
          new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
      ],
    ])('without domainInformation, ignores a lock lookup that %s', async (_how, get) => {
      const plugin = cannedRegistrar({ without: ['domainInformation'] });
      plugin.registrarLock = { get, save: async () => ({ ok: true }) } as never;
      const { gateway } = gatewayFor(plugin, 50);
      const info = await gateway.information(aDomain({ transferLock: null }));
      expect(info.transferLock).toBeUndefined();
      expect(info.nameservers).toEqual(['ns1.registrar.net', 'ns2.registrar.net']);
    });

    it('without domainInformation, uses the lock the platform holds when the registrar cannot tell', async () => {
      const plugin = cannedRegistrar({ without: ['domainInformation', 'registrarLock'] });
      const { gateway } = gatewayFor(plugin);
      expect((await gateway.information(aDomain({ transferLock: false }))).transferLock).toBe(false);
    });

    it('without domainInformation, needs nameservers: a failure there is the answer', async () => {
      const plugin = cannedRegistrar({ without: ['domainInformation'] });
      plugin.nameservers = {
        get: async () => ({ ok: false, reason: 'refused', message: 'no such domain' }),
        save: async () => ({ ok: true }),
      };
      const { gateway } = gatewayFor(plugin);
      await expect(gateway.information(aDomain())).rejects.toMatchObject({
        code: 'registrar_failed',
        message: 'Registrar fake refused: no such domain',
      });
    });

    it('without domainInformation or nameservers, answers a 400 naming the capability', async () => {
      const plugin = cannedRegistrar({ without: ['domainInformation', 'nameservers'] });
      const { gateway } = gatewayFor(plugin);
      await expect(gateway.information(aDomain())).rejects.toMatchObject({
        code: 'capability_missing',
        message: expect.stringMatching(/domainInformation/),
      });
      expect(plugin.calls).toEqual([]);
    });

    it('keeps the well-formed docs/api.md#domain-information extras a registrar adds and drops the rest', async () => {
      const plugin = cannedRegistrar();
      plugin.domainInformation = {
        get: async () => ({
          ok: true,
          nameservers: ['NS1.Registrar.NET.'],
          extra: {
            irtpTransferLock: true,
            transferLockExpiryDate: '2027-01-02',
            willDomainSuspend: 'maybe',
            isIrtpEnabled: true,
            secretSauce: 1,
          },
        }),
      };
      const info = await gatewayFor(plugin).gateway.information(aDomain());
      expect(info.nameservers).toEqual(['ns1.registrar.net']);
      expect(info.extra).toEqual({
        irtpTransferLock: true,
        transferLockExpiryDate: '2027-01-02T00:00:00.000Z',
        isIrtpEnabled: true,
      });
    });
  });

  describe('transfer sync', () => {
    it('without transferSync, answers completed with the expiry date the platform holds', async () => {
      const plugin = cannedRegistrar({ without: ['transferSync'] });
      const answer = await gatewayFor(plugin).gateway.transferSync(
        aDomain({ status: 'Pending Transfer', expiryDate: '2028-02-29' }),
      );
      expect(answer).toEqual({
        completed: true,
        failed: false,
        reason: undefined,
        expiryDate: '2028-02-29',
        fromPlatform: true,
      });
      expect(plugin.calls).toEqual([]);
    });

    it('relays a registrar that offers transferSync', async () => {
      const plugin = cannedRegistrar();
      plugin.transferSync = {
        sync: async () => ({ ok: true, completed: false, failed: true, reason: 'EPP code\nwrong' }),
      };
      expect(await gatewayFor(plugin).gateway.transferSync(aDomain())).toEqual({
        completed: false,
        failed: true,
        reason: 'EPP code wrong',
        expiryDate: undefined,
        fromPlatform: false,
      });
    });
  });

  describe('domain sync', () => {
    it('without domainSync, reports the platform record unchanged', async () => {
      const plugin = cannedRegistrar({ without: ['domainSync'] });
      const { gateway } = gatewayFor(plugin);
      expect(await gateway.sync(aDomain({ status: 'Grace', expiryDate: '2026-11-01' }))).toEqual({
        active: false,
        expired: true,
        transferredAway: false,
        cancelled: false,
        expiryDate: '2026-11-01',
        fromPlatform: true,
      });
    });

    it('relays a registrar that offers domainSync, with its expiry normalised to a date', async () => {
      const plugin = cannedRegistrar();
      plugin.domainSync = {
        sync: async () => ({
          ok: true,
          active: false,
          expired: false,
          transferredAway: true,
          expiryDate: '2030-01-31T12:00:00Z',
        }),
      };
      expect(await gatewayFor(plugin).gateway.sync(aDomain())).toEqual({
        active: false,
        expired: false,
        transferredAway: true,
        cancelled: false,
        expiryDate: '2030-01-31',
        fromPlatform: false,
      });
    });
  });

  describe('a capability without a fallback', () => {
    const domain = aDomain();
    it.each([
      ['nameservers', (g: RegistrarGateway) => g.nameservers(domain)],
      ['nameservers', (g: RegistrarGateway) => g.saveNameservers(domain, ['ns1.example.net', 'ns2.example.net'])],
      ['childHosts', (g: RegistrarGateway) => g.registerChildHost(domain, 'ns1.example.com', '192.0.2.1')],
      ['childHosts', (g: RegistrarGateway) => g.modifyChildHost(domain, 'ns1.example.com', '192.0.2.1', '192.0.2.2')],
      ['childHosts', (g: RegistrarGateway) => g.deleteChildHost(domain, 'ns1.example.com')],
      ['dnsRecords', (g: RegistrarGateway) => g.dnsRecords(domain)],
      ['dnsRecords', (g: RegistrarGateway) => g.saveDnsRecords(domain, [])],
      ['registrarLock', (g: RegistrarGateway) => g.lock(domain)],
      ['registrarLock', (g: RegistrarGateway) => g.saveLock(domain, true)],
      ['idProtection', (g: RegistrarGateway) => g.saveIdProtection(domain, true)],
      ['eppCode', (g: RegistrarGateway) => g.eppCode(domain)],
      ['contacts', (g: RegistrarGateway) => g.contacts(domain)],
      ['contacts', (g: RegistrarGateway) => g.saveContacts(domain, {})],
      ['emailForwarding', (g: RegistrarGateway) => g.emailForwards(domain)],
      ['emailForwarding', (g: RegistrarGateway) => g.saveEmailForwards(domain, [])],
      ['delete', (g: RegistrarGateway) => g.delete(domain)],
      ['release', (g: RegistrarGateway) => g.release(domain, 'TAG')],
    ] as const)('answers a 400 naming %s when the registrar lacks it', async (capability, act) => {
      const plugin = cannedRegistrar({ without: [capability] });
      const error = await act(gatewayFor(plugin).gateway).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({
        code: 'capability_missing',
        message: expect.stringContaining(`(capability ${capability})`),
      });
      expect(plugin.calls).toEqual([]);
    });

    it('answers undefined for TLD prices when the registrar lacks tldPricing, so prices come from the catalogue', async () => {
      const plugin = cannedRegistrar({ without: ['tldPricing'] });
      const { gateway } = gatewayFor(plugin);
      expect(await gateway.tldPrices('fake')).toBeUndefined();
    });
  });

  describe('registrar outcomes and faults', () => {
    it("turns a refusal into registrar_failed carrying the registrar's message", async () => {
      const plugin = cannedRegistrar();
      plugin.registrarLock = {
        get: async () => ({ ok: true, locked: true }),
        save: async () => ({ ok: false, reason: 'refused', message: 'Object status prohibits operation' }),
      };
      await expect(gatewayFor(plugin).gateway.saveLock(aDomain(), false)).rejects.toMatchObject({
        code: 'registrar_failed',
        message: 'Registrar fake refused: Object status prohibits operation',
      });
    });

    it('turns unavailable into a 400 the client can act on', async () => {
      const plugin = cannedRegistrar();
      plugin.eppCode = {
        get: async () => ({ ok: false, reason: 'unavailable', message: 'the code is sent to the registrant' }),
      };
      await expect(gatewayFor(plugin).gateway.eppCode(aDomain())).rejects.toMatchObject({ code: 'unavailable' });
    });

    it('counts a pending write as accepted', async () => {
      const plugin = cannedRegistrar();
      plugin.delete = { delete: async () => ({ ok: false, reason: 'pending', message: 'queued at the registry' }) };
      expect(await gatewayFor(plugin).gateway.delete(aDomain())).toEqual({ pending: true });
    });

    it('turns a thrown fault into registrar_failed with its message and no stack, and logs it', async () => {
      const plugin = cannedRegistrar();
      const fault = new Error('connect ECONNREFUSED 10.0.0.1:700');
      plugin.nameservers = {
        get: async () => {
          throw fault;
        },
        save: async () => ({ ok: true }),
      };
      const { gateway, logger } = gatewayFor(plugin);
      const error = await gateway.nameservers(aDomain()).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error).toMatchObject({
        code: 'registrar_failed',
        message: 'Registrar fake failed: connect ECONNREFUSED 10.0.0.1:700',
      });
      expect(error?.message).not.toMatch(/\bat /);
      expect(logger.entries).toContainEqual(
        expect.objectContaining({ level: 'warn', obj: expect.objectContaining({ err: fault }) }),
      );
    });

    it('cuts a call off at the deadline with registrar_timeout and aborts its signal', async () => {
      const plugin = cannedRegistrar();
      let signal: AbortSignal | undefined;
      plugin.eppCode = {
        get: (_input, ctx) => {
          signal = ctx.signal;
          return new Promise(() => undefined);
        },
      };
      await expect(gatewayFor(plugin, 20).gateway.eppCode(aDomain())).rejects.toMatchObject({
        code: 'registrar_timeout',
        message: 'Registrar fake did not answer within 20 ms',
      });
      expect(signal?.aborted).toBe(true);
    });

    it.each([
      ['not an outcome', 'yes'],
      ['a success without its data', { ok: true }],
      ['a nameserver that is not a host name', { ok: true, nameservers: ['ns1.example.net', 'rm -rf /'] }],
      ['an unknown failure reason', { ok: false, reason: 'maybe', message: 'x' }],
    ])('rejects %s as registrar_failed', async (_label, answer) => {
      const plugin = cannedRegistrar();
      plugin.nameservers = { get: async () => answer as never, save: async () => ({ ok: true }) };
      await expect(gatewayFor(plugin).gateway.nameservers(aDomain())).rejects.toMatchObject({
        code: 'registrar_failed',
        message: 'Registrar fake gave an answer to nameservers.get that cannot be used',
      });
    });

    it('rejects an expiry date that is not a calendar date', async () => {
      const plugin = cannedRegistrar();
      plugin.domainSync = {
        sync: async () => ({
          ok: true,
          active: true,
          expired: false,
          transferredAway: false,
          expiryDate: '2027-02-30',
        }),
      };
      await expect(gatewayFor(plugin).gateway.sync(aDomain())).rejects.toMatchObject({ code: 'registrar_failed' });
    });

    it("keeps a registrar's message to one bounded line", async () => {
      const plugin = cannedRegistrar();
      plugin.idProtection = {
        save: async () => ({ ok: false, reason: 'refused', message: `line one\n\tline two ${'x'.repeat(1000)}` }),
      };
      const error = await gatewayFor(plugin)
        .gateway.saveIdProtection(aDomain(), true)
        .then(
          () => undefined,
          (e: Error) => e,
        );
      expect(error?.message).toMatch(/^Registrar fake refused: line one line two x+…$/);
      expect(error!.message.length).toBeLessThan(350);
    });

    it('reports a domain whose registrar is not installed as registrar_failed', async () => {
      const { gateway } = gatewayFor(cannedRegistrar());
      await expect(gateway.nameservers(aDomain({ registrar: 'gone' }))).rejects.toMatchObject({
        code: 'registrar_failed',
        message: expect.stringMatching(/gone is not installed/),
      });
    });
  });

  describe('the ownership lookup chain (reconciliation)', () => {
    it('reports a name the registrar skipped as unknown, never as not ours', async () => {
      const plugin = cannedRegistrar({ without: ['domainSync', 'domainInformation'] });
      plugin.checkAvailability = async () => [{ domain: 'not-asked.com', status: 'available' }];
      expect(await gatewayFor(plugin).gateway.ownership('fake', 'a.com')).toEqual({
        kind: 'unknown',
        message: 'the registrar reports a.com as unknown and cannot say whose it is',
      });
    });

    it('asks domain sync first, then domain information, then availability', async () => {
      const plugin = cannedRegistrar();
      expect(await gatewayFor(plugin).gateway.ownership('fake', 'a.com')).toMatchObject({ kind: 'ours' });
      expect(plugin.calls).toEqual(['domainSync.sync']);
    });
  });

  describe('namePrice: what a name costs beyond the catalogue (issue 26 item 1)', () => {
    const registeredElsewhere = (plugin: ReturnType<typeof cannedRegistrar>) => {
      // As real registrars answer for a name that is registered: no premium flag at all.
      plugin.checkAvailability = async (domains) => {
        plugin.calls.push('checkAvailability');
        return domains.map((domain) => ({ domain, status: 'registered' }));
      };
      return plugin;
    };

    it("asks domainPricing for a renewal or transfer, turning the period's cost into a yearly one", async () => {
      const plugin = registeredElsewhere(cannedRegistrar());
      const asked: unknown[] = [];
      plugin.domainPricing = {
        price: async (input) => {
          asked.push(input);
          return { ok: true, isPremium: true, cost: 100_001 };
        },
      };
      const { gateway } = gatewayFor(plugin);
      expect(await gateway.namePrice('fake', 'rare.com', 'renew', 2)).toEqual({
        kind: 'premium',
        cost: { renew: 50_001 },
      });
      expect(await gateway.namePrice('fake', 'rare.com', 'transfer', 1)).toEqual({
        kind: 'premium',
        cost: { transfer: 100_001 },
      });
      expect(asked).toEqual([
        { domain: 'rare.com', action: 'renew', period: 2 },
        { domain: 'rare.com', action: 'transfer', period: 1 },
      ]);
    });

    it('asks availability for a registration, and without domainPricing; a registered name there cannot tell', async () => {
      const plugin = registeredElsewhere(cannedRegistrar({ without: ['domainPricing'] }));
      const { gateway } = gatewayFor(plugin);
      expect(await gateway.namePrice('fake', 'rare.com', 'renew', 1)).toEqual({ kind: 'cannot_tell' });
      expect(plugin.calls).toEqual(['checkAvailability']);
      const withPricing = cannedRegistrar();
      await gatewayFor(withPricing).gateway.namePrice('fake', 'new.com', 'register', 1);
      expect(withPricing.calls).toEqual(['checkAvailability']);
    });

    it('reads a refusal as no answer, and a premium answer without a cost, or a cost of 0, as malformed', async () => {
      const plugin = cannedRegistrar();
      plugin.domainPricing = { price: async () => ({ ok: false, reason: 'refused', message: 'no fee data' }) };
      expect(await gatewayFor(plugin).gateway.namePrice('fake', 'x.com', 'renew', 1)).toEqual({
        kind: 'no_answer',
        message: 'no fee data',
      });
      for (const answer of [{ isPremium: true }, { isPremium: true, cost: 0 }, { isPremium: 'yes', cost: 5 }]) {
        plugin.domainPricing = { price: async () => ({ ok: true, ...answer }) as never };
        await expect(gatewayFor(plugin).gateway.namePrice('fake', 'x.com', 'renew', 1)).rejects.toMatchObject({
          kind: 'malformed',
        });
      }
    });
  });
});
