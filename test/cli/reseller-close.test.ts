import { cli, cliEnv } from '../support/cli';
import { startHarness, type Harness } from '../support/harness';
import { ulid } from 'ulid';
import { TOKENS } from '../../src/core/tokens';
import { givenDomain } from '../support/domains';
import { deferred } from '../support/fakes';
import type { UnitOfWork } from '../../src/core/common/unit-of-work';
import { CreditService } from '../../src/core/credit/credit-service';
import { ResellerService } from '../../src/core/reseller/reseller-service';

/** `uow`, whose transactions stop just before their audit entry (the last thing they write) until `release`. */
function heldBeforeAudit(uow: UnitOfWork, reached: () => void, release: Promise<void>): UnitOfWork {
  return {
    read: uow.read,
    run: (work) =>
      uow.run((repos) =>
        work({
          ...repos,
          audit: {
            append: async (entry) => {
              reached();
              await release;
              return repos.audit.append(entry);
            },
            find: (query) => repos.audit.find(query),
            purge: (before, limit) => repos.audit.purge(before, limit),
          },
        }),
      ),
  };
}

/** Issue 31, item 9: closing a reseller, on its own or handing its domains to another in the same step. */
describe('reseller-admin reseller close', () => {
  let h: Harness;
  let env: NodeJS.ProcessEnv;
  let heir: { email: string; apiKey: string };
  const ownerOf = async (name: string) =>
    (
      await h.module
        .knex('domains')
        .join('resellers', 'resellers.id', 'domains.reseller_id')
        .where({ name })
        .first('email')
    )?.email;
  const statusOf = async (email: string) => (await cli(env, 'reseller', 'show', email)).json().status;

  beforeEach(async () => {
    h = await startHarness();
    env = cliEnv(h);
    const created = await h.module.services.resellers.create('heir@example.com', 'default', 0);
    heir = { email: created.reseller.email, apiKey: created.apiKey };
  });
  afterEach(async () => {
    await h.close();
  });

  it('is refused while the reseller holds credit, then while it holds a domain, and closes an empty account', async () => {
    const email = h.reseller.email;
    const withCredit = await cli(env, 'reseller', 'close', email);
    expect(withCredit.code).toBe(1);
    expect(withCredit.stderr).toContain(`still holds 100.00 of credit: refund it first (credit add ${email} -100.00`);
    await givenDomain(h.module, 'kept-31.com');
    expect((await cli(env, 'credit', 'add', email, '-100.00', '--note', 'refund')).code).toBe(0);
    const withDomain = await cli(env, 'reseller', 'close', email);
    expect(withDomain.code).toBe(1);
    expect(withDomain.stderr).toContain(
      'still holds domains (kept-31.com): move them to another reseller (--move-domains-to',
    );
    expect(await statusOf(email)).toBe('active');
    await h.module.knex('domains').where({ name: 'kept-31.com' }).update({ status: 'Cancelled' });
    expect((await cli(env, 'reseller', 'close', email)).json()).toEqual({ email, status: 'closed' });
    expect((await h.http.get('/billing/credits').set(h.headers())).status).toBe(401);
  });

  it('keeps a closed account closed: activate and suspend are refused and change nothing', async () => {
    const email = h.reseller.email;
    expect((await cli(env, 'credit', 'add', email, '-100.00', '--note', 'refund')).code).toBe(0);
    expect((await cli(env, 'reseller', 'close', email)).code).toBe(0);
    for (const command of ['activate', 'suspend']) {
      const refused = await cli(env, 'reseller', command, email);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`${email} is closed, and a closed account stays closed`);
      expect(await statusOf(email)).toBe('closed');
    }
    expect((await h.http.get('/billing/credits').set(h.headers())).status).toBe(401);
  });

  it('closes the reseller and hands its held domains to another in one step; gone domains stay with it', async () => {
    const email = h.reseller.email;
    expect((await cli(env, 'credit', 'add', email, '-100.00', '--note', 'refund')).code).toBe(0);
    await givenDomain(h.module, 'moved-a.com');
    await givenDomain(h.module, 'moved-b.com', { status: 'Grace', expiryDate: '2026-11-01' });
    await givenDomain(h.module, 'gone.com', { status: 'Cancelled', atRegistrar: false });
    await givenDomain(h.module, 'theirs.com', { owner: heir.email });

    const run = await cli(env, 'reseller', 'close', email, '--move-domains-to', 'Heir@Example.com');
    expect(run.code).toBe(0);
    expect(run.json()).toEqual({ email, status: 'closed', movedDomains: 2, movedTo: heir.email });
    expect(await ownerOf('moved-a.com')).toBe(heir.email);
    expect(await ownerOf('moved-b.com')).toBe(heir.email);
    expect(await ownerOf('gone.com')).toBe(email);
    expect(await ownerOf('theirs.com')).toBe(heir.email);
    const seen = await h.http.get('/domains/moved-a.com/information').set(h.headers(heir));
    expect(seen.status).toBe(200);
    expect((await h.http.get('/billing/credits').set(h.headers())).status).toBe(401);
  });

  it('changes nothing when it is refused: credit left, an order in progress, or an heir that cannot take domains', async () => {
    const email = h.reseller.email;
    await givenDomain(h.module, 'stays.com');

    const withCredit = await cli(env, 'reseller', 'close', email, '--move-domains-to', heir.email);
    expect(withCredit.code).toBe(1);
    expect(withCredit.stderr).toContain('still holds 100.00 of credit');

    expect((await cli(env, 'credit', 'add', email, '-100.00', '--note', 'refund')).code).toBe(0);
    await givenDomain(h.module, 'ordering.com', { status: 'Pending Registration', atRegistrar: false });
    const inFlight = await cli(env, 'reseller', 'close', email, '--move-domains-to', heir.email);
    expect(inFlight.code).toBe(1);
    expect(inFlight.stderr).toContain(
      `${email} has orders in progress (ordering.com): close it once they have settled`,
    );

    await h.module.knex('domains').where({ name: 'ordering.com' }).update({ status: 'Cancelled' });
    expect((await cli(env, 'reseller', 'suspend', heir.email)).code).toBe(0);
    const suspended = await cli(env, 'reseller', 'close', email, '--move-domains-to', heir.email);
    expect(suspended.code).toBe(1);
    expect(suspended.stderr).toContain('heir@example.com is suspended: domains can only move to an active reseller');

    const itself = await cli(env, 'reseller', 'close', email, '--move-domains-to', email);
    expect(itself.code).toBe(1);
    expect(itself.stderr).toContain('cannot take over its own domains');
    const nobody = await cli(env, 'reseller', 'close', email, '--move-domains-to', 'nobody@example.com');
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toContain('no reseller with email nobody@example.com');

    expect(await statusOf(email)).toBe('active');
    expect(await ownerOf('stays.com')).toBe(email);
    expect((await h.http.get('/billing/credits').set(h.headers())).status).toBe(200);
  });
  it('is refused while a held domain has an open order (a renewal in progress), moving nothing', async () => {
    const email = h.reseller.email;
    expect((await cli(env, 'credit', 'add', email, '-100.00', '--note', 'refund')).code).toBe(0);
    const domain = await givenDomain(h.module, 'renewing.com');
    const now = Date.now();
    await h.module.knex('orders').insert({
      id: ulid(),
      reseller_id: domain.resellerId,
      action: 'renew',
      domain_id: domain.id,
      domain_name: 'renewing.com',
      registrar: 'sandbox',
      period: 1,
      price_minor: 1000,
      status: 'pending',
      open_domain: 'renewing.com',
      request: JSON.stringify({ addons: [] }),
      reconcile_attempts: 0,
      created_at: now,
      updated_at: now,
    });

    // Moved, the renewal's refund (were it to fail) would land on the closed account.
    const run = await cli(env, 'reseller', 'close', email, '--move-domains-to', heir.email);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`${email} has orders in progress (renewing.com): close it once they have settled`);
    expect(await statusOf(email)).toBe('active');
    expect(await ownerOf('renewing.com')).toBe(email);
  });
  it('never hands domains to an heir whose own closing commits meanwhile (the heir is read locked)', async () => {
    const email = h.reseller.email;
    expect((await cli(env, 'credit', 'add', email, '-100.00', '--note', 'refund')).code).toBe(0);
    await givenDomain(h.module, 'contested.com');
    const heirRow = await h.module.services.resellers.byEmail(heir.email);
    const uow = h.module.container.get(TOKENS.unitOfWork);
    // The heir's own closing, held open after its status change (its checks found nothing to keep).
    const statusChanged = deferred();
    const release = deferred();
    const closingHeir = uow.run(async ({ resellers }) => {
      await resellers.setStatus(heirRow.id, 'closed');
      statusChanged.resolve();
      await release.promise;
    });
    await statusChanged.promise;
    // Its refusal is awaited from the start: it may come while the heir's commit is still being awaited.
    const closing = expect(h.module.services.resellers.close(email, { moveDomainsTo: heir.email })).rejects.toThrow(
      'heir@example.com is closed: domains can only move to an active reseller',
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    release.resolve();
    await closingHeir;
    await closing;
    expect(await ownerOf('contested.com')).toBe(email);
  });

  describe('racing a credit top-up (review finding: the close read the balance without a lock)', () => {
    const services = () => {
      const uow = h.module.container.get(TOKENS.unitOfWork);
      const clock = h.module.container.get(TOKENS.clock);
      return { uow, clock, secrets: h.module.container.get(TOKENS.secretBox) };
    };
    const balanceOf = async (email: string) =>
      h.module.services.credit.balance((await h.module.services.resellers.byEmail(email)).id);

    it('refuses the close when a top-up is committing meanwhile, leaving the credit on an open account', async () => {
      const email = h.reseller.email;
      const { id } = await h.module.services.resellers.byEmail(email);
      await h.module.services.credit.adjust(id, -10000, 'refund');
      const { uow, clock } = services();
      const reached = deferred();
      const release = deferred();
      // The top-up has moved the balance and is about to commit.
      const toppingUp = new CreditService(heldBeforeAudit(uow, reached.resolve, release.promise), clock).adjust(
        id,
        1000,
        'top-up',
      );
      await reached.promise;
      const closing = h.module.services.resellers.close(email).then(
        () => 'closed',
        (error: Error) => error.message,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      release.resolve();
      await toppingUp;
      expect(await closing).toContain(`${email} still holds 10.00 of credit: refund it first`);
      expect(await statusOf(email)).toBe('active');
      expect(await balanceOf(email)).toBe(1000);
    });

    it('refuses a top-up that comes while the close is committing: no credit is left on a closed account', async () => {
      const email = h.reseller.email;
      const { id } = await h.module.services.resellers.byEmail(email);
      await h.module.services.credit.adjust(id, -10000, 'refund');
      const { uow, clock, secrets } = services();
      const reached = deferred();
      const release = deferred();
      // The close has checked the balance (0.00) and is about to commit.
      const closing = new ResellerService(heldBeforeAudit(uow, reached.resolve, release.promise), secrets, clock).close(
        email,
      );
      await reached.promise;
      const toppingUp = h.module.services.credit.adjust(id, 1000, 'top-up').then(
        () => 'added',
        (error: Error) => error.message,
      );
      await new Promise((resolve) => setTimeout(resolve, 300));
      release.resolve();
      await closing;
      expect(await toppingUp).toBe(`${email} is closed: credit cannot be added to a closed account`);
      expect(await statusOf(email)).toBe('closed');
      expect(await balanceOf(email)).toBe(0);
    });
  });
});
