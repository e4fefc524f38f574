import { startHarness, type Harness } from '../support/harness';
import { givenDomain } from '../support/domains';
import { CONSOLE, createOperator, csrfOf, signInOverHttp, type TestOperator } from '../support/web';
import { TOKENS } from '../../src/core/tokens';

describe("console domain page: the registrar's last answer is kept", () => {
  let h: Harness;
  let admin: TestOperator;

  beforeAll(async () => {
    h = await startHarness({ before: (module) => [module.console({ mountPath: CONSOLE })] });
    admin = await createOperator(h, 'admin@example.com', 'admin');
  });
  afterAll(() => h.close());

  const lastAnswer = async (name: string) => {
    const read = h.module.container.get(TOKENS.unitOfWork).read.domains;
    return read.lastSyncAnswer((await read.findByName(name))!.id);
  };

  it('says the registrar was not asked yet, then shows the answer of a background sync with its time', async () => {
    const domain = await givenDomain(h.module, 'kept-answer.com');
    const { agent } = await signInOverHttp(h, admin);
    const before = await agent.get(`${CONSOLE}/domains/kept-answer.com`);
    expect(before.status).toBe(200);
    expect(before.text).toContain('id="registrar-answer-none"');

    // A background pass, not the console's button: the page still shows what the registrar said.
    await h.module.services.domainSync.syncDomain(domain);
    const stored = await lastAnswer('kept-answer.com');
    expect(stored).toMatchObject({ kind: 'sync', at: h.clock.now(), error: null });
    expect(stored?.answer).toMatchObject({ active: true, expiryDate: domain.expiryDate });

    const after = await agent.get(`${CONSOLE}/domains/kept-answer.com`);
    expect(after.text).toMatch(/id="registrar-answer-at">Sync, /);
    expect(after.text).toContain('&quot;active&quot;: true');
    expect(after.text).not.toContain('id="sync-changes"');
  });

  it('keeps a failed call as the last answer, with the reason', async () => {
    // Unknown at the registrar: the sandbox refuses to answer for it.
    const domain = await givenDomain(h.module, 'unknown-there.com', { atRegistrar: false });
    await expect(h.module.services.domainSync.syncDomain(domain)).rejects.toThrow();
    const stored = await lastAnswer('unknown-there.com');
    expect(stored).toMatchObject({ kind: 'sync', answer: null });
    expect(stored?.error).toEqual(expect.any(String));
    const { agent } = await signInOverHttp(h, admin);
    const page = await agent.get(`${CONSOLE}/domains/unknown-there.com`);
    expect(page.text).toContain('id="registrar-answer-error"');
  });

  it('shows what "sync now" changed and keeps its answer for the next visit', async () => {
    await givenDomain(h.module, 'synced-now.com');
    const { agent, csrf } = await signInOverHttp(h, admin);
    const page = await agent.get(`${CONSOLE}/domains/synced-now.com`);
    const synced = await agent
      .post(`${CONSOLE}/domains/synced-now.com/sync`)
      .type('form')
      .send({ _csrf: csrfOf(page.text) || csrf });
    expect(synced.status).toBe(200);
    expect(synced.text).toContain('id="sync-changes"');
    // Audited with the answer it kept, in the sync's own transaction, as the operator.
    const [entry] = await h.module.services.audit.find({ subject: { kind: 'domain', id: 'synced-now.com' }, limit: 1 });
    expect(entry).toMatchObject({ action: 'domain.sync', actor: { kind: 'operator', label: 'admin@example.com' } });
    expect(entry?.after).toMatchObject({ registrarAnswer: { active: true } });
    const later = await agent.get(`${CONSOLE}/domains/synced-now.com`);
    expect(later.text).toContain('id="registrar-answer"');
    // Never a secret: the EPP code is not part of a sync answer.
    expect(later.text.toLowerCase()).not.toMatch(/epp|authinfo|auth_code/);
  });
});
