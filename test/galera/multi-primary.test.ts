import knex, { type Knex } from 'knex';
import { computeToken } from '../../src/core/auth/api-token';
import { galeraSettingProblems } from '../../src/infra/db/galera-settings';
import { ledgerProblems } from '../support/ledger-invariant';
import { TEST_MASTER_KEY } from '../support/harness';
import { type LoggingServer, startLoggingServer } from '../support/server-process';
import { form, registerForm } from '../support/wire';
import { type NodeServer, serversOnNodes, stopServers } from './servers';

/**
 * The money design on a multi-primary Galera cluster (docs/operations.md, "Galera"): one server
 * per node, each writing to its own node, racing for the same credit, name, Idempotency-Key and
 * renewal. Runs when GALERA_URLS lists the nodes (`.ci/galera.sh` starts a three-node cluster on
 * loopback ports and sets it); skipped otherwise.
 */
const NODES = (process.env.GALERA_URLS ?? '').split(',').filter(Boolean);
const describeOnGalera = NODES.length >= 2 ? describe : describe.skip;

describeOnGalera(`servers on ${NODES.length} Galera nodes`, () => {
  const database = `galera_${process.pid}_${Date.now()}`;
  let admin: Knex;
  let check: Knex;
  const nodes: NodeServer[] = [];

  beforeAll(async () => {
    admin = knex({ client: 'mysql2', connection: NODES[0]! });
    await admin.raw(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    nodes.push(...(await serversOnNodes(NODES, database)));
    check = knex({ client: 'mysql2', connection: `${NODES[NODES.length - 1]}/${database}` });
  }, 120_000);

  afterAll(async () => {
    await stopServers(nodes);
    await check?.destroy();
    if (!process.env.GALERA_KEEP) await admin?.raw(`DROP DATABASE IF EXISTS \`${database}\``);
    await admin?.destroy();
  });

  /** A reseller with `credit` minor units, created on the first node. */
  const reseller = async (email: string, credit: number) => {
    const { apiKey } = await nodes[0]!.module.services.resellers.create(email, 'default', credit);
    return () => ({ username: email, token: computeToken(email, apiKey, new Date()) });
  };
  /** A reply's status and body (JSON, else the text), and on a failure its time: what a failed expectation shows. */
  const post = async (node: NodeServer, path: string, headers: Record<string, string>, body: string) => {
    const started = Date.now();
    const res = await fetch(`${node.url}${path}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    if (res.status >= 500) return { status: res.status, body: parsed, ms: Date.now() - started };
    return { status: res.status, body: parsed };
  };
  const balance = async (email: string) =>
    Number(
      (
        await check('credit_accounts')
          .join('resellers', 'resellers.id', 'credit_accounts.reseller_id')
          .where('resellers.email', email)
          .first('credit_accounts.balance_minor')
      )?.balance_minor,
    );
  const expectCleanLedger = async () => expect(await ledgerProblems(check)).toEqual([]);

  it('sells one name once when every node orders it at once', async () => {
    const headers = await reseller('contested@example.com', 100 * 1000);
    const replies = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        post(nodes[i % nodes.length]!, '/order/domains/register', headers(), registerForm('contested.com')),
      ),
    );
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of replies.filter((x) => x.status !== 200))
      expect([400, 409].includes(r.status) ? 'ok' : r).toBe('ok');
    expect(await check('orders').where({ domain_name: 'contested.com' })).toHaveLength(1);
    expect(await balance('contested@example.com')).toBe(100 * 1000 - 1000);
    await expectCleanLedger();
  }, 120_000);

  it('places one order for one Idempotency-Key sent to every node at once, and every retry hears it', async () => {
    const headers = await reseller('keyed@example.com', 100 * 1000);
    const keyed = () => ({ ...headers(), 'idempotency-key': 'galera-key-1' });
    const replies = await Promise.all(
      Array.from({ length: 9 }, (_, i) =>
        post(nodes[i % nodes.length]!, '/order/domains/register', keyed(), registerForm('keyed.com')),
      ),
    );
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    for (const r of replies) expect([200, 409].includes(r.status) ? 'ok' : r).toBe('ok');
    for (const node of nodes)
      expect(await post(node, '/order/domains/register', keyed(), registerForm('keyed.com'))).toEqual({
        status: 200,
        body: 'success',
      });
    expect(await check('orders').where({ domain_name: 'keyed.com' })).toHaveLength(1);
    expect(await balance('keyed@example.com')).toBe(100 * 1000 - 1000);
    await expectCleanLedger();
  }, 120_000);

  it('charges each renewal that went through, and only those, when every node renews one name at once', async () => {
    const headers = await reseller('renew@example.com', 100 * 1000);
    expect((await post(nodes[0]!, '/order/domains/register', headers(), registerForm('renewed.com'))).status).toBe(200);
    const before = await check('domains').where({ name: 'renewed.com' }).first();
    const replies = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(
          nodes[i % nodes.length]!,
          '/order/domains/renew',
          headers(),
          form({ domain: 'renewed.com', regperiod: '1' }),
        ),
      ),
    );
    const renewed = replies.filter((r) => r.status === 200).length;
    expect(renewed).toBeGreaterThanOrEqual(1);
    for (const r of replies.filter((x) => x.status !== 200))
      expect(r).toEqual({ status: 409, body: expect.anything() });
    const completed = await check('orders').where({ domain_name: 'renewed.com', action: 'renew', status: 'completed' });
    expect(completed).toHaveLength(renewed);
    expect(await balance('renew@example.com')).toBe(100 * 1000 - 1000 - renewed * 1200);
    const after = await check('domains').where({ name: 'renewed.com' }).first();
    expect(Number(String(after.expiry_date).slice(0, 4))).toBe(
      Number(String(before.expiry_date).slice(0, 4)) + renewed,
    );
    await expectCleanLedger();
  }, 120_000);

  // Issue 26: this found an oversell (11 to 13 sold in about 3 runs of 8). The ledger asked the
  // server's version inside the order's transaction and took a failure of that question for "no";
  // when the failure was Galera aborting the transaction for another node's commit, the debit's
  // entry and order were committed in a new transaction without the balance update. Fixed at
  // that cause (the error is thrown) and guarded where any error like it is swallowed (the unit of
  // work never commits after a statement that ended its transaction): test/unit/infra/transaction-ending-errors.test.ts,
  // test/integration/transaction-ended-by-database.test.ts.
  it('sells exactly what the credit pays for when every node takes orders at once', async () => {
    const headers = await reseller('short@example.com', 10 * 1000);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        post(nodes[i % nodes.length]!, '/order/domains/register', headers(), registerForm(`short-${i}.com`)),
      ),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(10);
    for (const r of replies.filter((x) => x.status !== 200)) {
      if (r.status === 503) continue; // busy: a conflict outlasted the retries; nothing was done
      expect([r.status, r.body]).toEqual([400, { error: expect.stringMatching(/^Insufficient credit/) }]);
    }
    const sold = statuses.filter((s) => s === 200).length;
    expect(await balance('short@example.com')).toBe(10 * 1000 - sold * 1000);
    const completed = await check('orders').where({ status: 'completed' }).where('domain_name', 'like', 'short-%');
    expect(completed).toHaveLength(sold);
    await expectCleanLedger();
  }, 120_000);

  // Last: it changes a node's global settings for a moment.
  it('warns at start of a node with one applier thread or reads that do not wait for the cluster', async () => {
    expect(await galeraSettingProblems(nodes[0]!.module.knex)).toEqual([]);
    const [[before]] = await admin.raw(
      'SELECT @@GLOBAL.wsrep_slave_threads AS threads, @@GLOBAL.wsrep_sync_wait AS syncWait',
    );
    const server = () =>
      startLoggingServer({
        DATABASE_URL: `${NODES[0]}/${database}`,
        MASTER_KEY: TEST_MASTER_KEY,
        BACKGROUND_JOBS: 'false',
      });
    const warnings = (s: LoggingServer) =>
      s
        .lines()
        .filter((l) => l.level === 40 && String(l.msg).startsWith('Galera node setting'))
        .map((l) => l.msg);
    const asAsked = server();
    try {
      await asAsked.listening;
      expect(warnings(asAsked)).toEqual([]);
    } finally {
      await asAsked.kill();
    }
    let wrong: LoggingServer | undefined;
    try {
      await admin.raw('SET GLOBAL wsrep_slave_threads = 1, GLOBAL wsrep_sync_wait = 0');
      expect(await galeraSettingProblems(nodes[0]!.module.knex)).toEqual([
        expect.stringMatching(/^wsrep_sync_wait is 0: /),
        expect.stringMatching(/^wsrep_slave_threads is 1: /),
      ]);
      wrong = server();
      await wrong.listening;
      expect(warnings(wrong)).toEqual([
        expect.stringMatching(/^Galera node setting \(docs\/operations.md, "Galera"\): wsrep_sync_wait is 0: /),
        expect.stringMatching(/^Galera node setting \(docs\/operations.md, "Galera"\): wsrep_slave_threads is 1: /),
      ]);
    } finally {
      await wrong?.kill();
      await admin.raw(
        `SET GLOBAL wsrep_slave_threads = ${Number(before.threads)}, GLOBAL wsrep_sync_wait = ${Number(before.syncWait)}`,
      );
    }
  }, 120_000);
});
