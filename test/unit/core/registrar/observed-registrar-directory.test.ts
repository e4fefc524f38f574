import { withDeadline } from '../../../../src/core/registrar/deadline';
import { observeRegistrarCalls, type RegistrarCall } from '../../../../src/core/registrar/observed-registrar-directory';
import { supports } from '../../../../src/core/registrar/plugin';
import { fakeDirectory } from '../../../support/fakes';
import { fakeRegistrar } from '../../../support/fake-registrar';

const ctx = () => ({ signal: new AbortController().signal, transactionId: 't' });

describe('observeRegistrarCalls', () => {
  const setup = (plugin = fakeRegistrar({ id: 'acme', without: ['transferSync'] })) => {
    const calls: RegistrarCall[] = [];
    const directory = observeRegistrarCalls(fakeDirectory(plugin), { registrarCall: (c) => calls.push(c) });
    return { plugin, calls, observed: directory.get('acme') };
  };

  it('records every call by plugin, capability, operation and outcome, and passes the answer on untouched', async () => {
    const { calls, observed } = setup();
    await expect(observed.registrarLock!.get({ domain: 'a.com' }, ctx())).resolves.toEqual({ ok: true, locked: true });
    await observed.checkAvailability(['a.com'], ctx());
    expect(calls.map(({ seconds: _s, ...c }) => c)).toEqual([
      { plugin: 'acme', capability: 'registrarLock', operation: 'get', outcome: 'ok' },
      { plugin: 'acme', capability: 'checkAvailability', operation: 'checkAvailability', outcome: 'ok' },
    ]);
    expect(calls.every((c) => c.seconds >= 0)).toBe(true);
  });

  it('keeps the capabilities a plugin lacks missing, so every fallback still applies', () => {
    const { observed } = setup();
    expect(supports(observed, 'transferSync')).toBe(false);
    expect(supports(observed, 'domainSync')).toBe(true);
  });

  it('tells refusals, faults and deadlines apart', async () => {
    const plugin = fakeRegistrar({ id: 'acme' });
    plugin.eppCode = { get: async () => ({ ok: false, reason: 'unavailable', message: 'no' }) };
    plugin.contacts = {
      get: async () => {
        throw new Error('socket hang up');
      },
      save: async () => ({ ok: true }),
    };
    plugin.registrarLock = { get: () => new Promise(() => undefined), save: async () => ({ ok: true }) };
    const { calls, observed } = setup(plugin);
    await observed.eppCode!.get({ domain: 'a.com' }, ctx());
    await expect(observed.contacts!.get({ domain: 'a.com' }, ctx())).rejects.toThrow('socket hang up');
    await expect(
      withDeadline('acme', 20, (c) => observed.registrarLock!.get({ domain: 'a.com' }, c)),
    ).rejects.toMatchObject({ code: 'registrar_timeout' });
    expect(calls.map((c) => `${c.capability}.${c.operation}:${c.outcome}`)).toEqual([
      'eppCode.get:unavailable',
      'contacts.get:error',
      'registrarLock.get:timeout',
    ]);
  });
});
