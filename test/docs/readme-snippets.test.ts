import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import knex from 'knex';
import { fixedClock } from '../../src/core/common/clock';
import { startHarness, type Harness } from '../support/harness';
import { TEST_ENGINE } from '../support/test-database';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** The README's ```ts block that contains `marker`, exactly as shown. */
function readmeBlock(marker: string): string {
  const blocks = [...readFileSync(path.join(ROOT, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)\n```/g)].map(
    (m) => m[1]!,
  );
  const found = blocks.filter((b) => b.includes(marker));
  if (found.length !== 1) throw new Error(`README.md has ${found.length} ts blocks containing ${marker}`);
  return found[0]!;
}

/**
 * What a snippet promises it prints: each `console.log(…); // <JSON>` line, in order, with the
 * JSON of its comment (a comment that is not JSON, like `// { orderId: '01JZ…' }`, promises nothing).
 */
function promisedOutput(snippet: string): Array<{ line: string; value: unknown }> {
  const promised: Array<{ line: string; value: unknown }> = [];
  for (const line of snippet.split('\n')) {
    const match = /^\s*console\.log\(.*\);\s*\/\/\s*(.+)$/.exec(line);
    if (!match) continue;
    const json = /^(\S.*?)(\s+\(.*\))?$/.exec(match[1]!)![1]!;
    try {
      promised.push({ line: line.trim(), value: JSON.parse(json) });
    } catch {
      promised.push({ line: line.trim(), value: undefined });
    }
  }
  return promised;
}

/**
 * Issue 31, item 10: the README's code, run as written against a real server. Only what ties it
 * to a place is replaced: the server's address, and the package name by this checkout's source
 * (`domain-reseller/client` → src/client). Each `console.log` whose comment shows JSON must print
 * that (an object: at least those fields). Engine-independent: runs once.
 */
(TEST_ENGINE === 'sqlite' ? describe : describe.skip)('the README snippets, run as written', () => {
  let h: Harness;
  let baseUrl: string;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness({ clock: fixedClock(new Date()) });
    if (!h.server.listening) await once(h.server, 'listening');
    baseUrl = `http://127.0.0.1:${(h.server.address() as AddressInfo).port}`;
    mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
    // In the checkout, so that the snippets' imports resolve as they do for its files.
    dir = mkdtempSync(path.join(ROOT, 'test-output', 'snippets-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await h.close();
  });

  async function runSnippet(name: string, code: string, env: NodeJS.ProcessEnv): Promise<unknown[]> {
    const file = path.join(dir, `${name}.mts`);
    writeFileSync(file, code);
    h.clock.set(new Date());
    try {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', file], {
        cwd: ROOT,
        env: { ...process.env, ...env },
      });
      return stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as unknown);
    } catch (error) {
      const failed = error as { stderr?: string; message: string };
      throw new Error(`the README's ${name} snippet failed:\n${failed.stderr ?? failed.message}\n--- as run:\n${code}`);
    }
  }

  function expectPrinted(printed: unknown[], snippet: string): void {
    const promised = promisedOutput(snippet);
    expect(printed).toHaveLength(promised.length);
    promised.forEach(({ line, value }, i) => {
      if (value === undefined) return;
      if (value !== null && typeof value === 'object' && !Array.isArray(value))
        expect({ line, printed: printed[i] }).toMatchObject({ line, printed: value });
      else expect({ line, printed: printed[i] }).toEqual({ line, printed: value });
    });
  }

  it('computes a working token in TypeScript (Authentication)', async () => {
    const { apiKey } = await h.module.services.resellers.create('demo@reseller.test', 'default', 1000_00);
    const snippet = readmeBlock('function resellerToken(');
    const code = snippet.replaceAll('http://127.0.0.1:8080', baseUrl);
    // JSON output for the comparison: the snippet logs a JSON string already.
    const printed = await runSnippet(
      'token',
      code.replace('console.log(await res.json())', 'console.log(JSON.stringify(await res.json()))'),
      {
        KEY: apiKey,
      },
    );
    expectPrinted(printed, snippet);
  });

  it('places an order and reads the domain back with the client SDK (Client SDK)', async () => {
    const snippet = readmeBlock('const client = new ResellerClient({');
    const code = snippet
      .replace(
        "from 'domain-reseller/client'",
        `from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/client/index.ts')).href)}`,
      )
      .replace("baseUrl: 'https://api.example.com'", `baseUrl: ${JSON.stringify(baseUrl)}`)
      .replaceAll(/console\.log\((.*)\);/g, 'console.log(JSON.stringify($1));');
    const printed = await runSnippet('sdk', code, { RESELLER_API_KEY: h.reseller.apiKey });
    expectPrinted(printed, snippet);
    const held = await h.module.knex('domains').where({ name: 'example.com' }).first('status');
    expect(held).toEqual({ status: 'Active' });
  });
  it("embeds the module in a host's Koa app and stops on SIGTERM (Embedding in a host platform)", async () => {
    const snippet = readmeBlock('createResellerModule({');
    const file = path.join(dir, 'host.sqlite');
    const plugins = mkdtempSync(path.join(dir, 'plugins-'));
    const ports = /\n {2}\/\/ Optional: your own customers[\s\S]*?\n {2}\},\n/;
    expect(snippet).toMatch(ports);
    const code = [
      // The host's own parts the snippet refers to.
      "import Router from '@koa/router';",
      'const hostRoutes = new Router();',
      'const notifyCustomer = (..._args: unknown[]) => undefined;',
      'const updateInvoiceScreen = notifyCustomer;',
      snippet
        .replace(
          "from 'domain-reseller'",
          `from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'src/index.ts')).href)}`,
        )
        .replace(
          "knex({ client: 'mysql2', connection: process.env.HOST_DATABASE_URL })",
          `knex({ client: 'better-sqlite3', connection: { filename: ${JSON.stringify(file)} }, useNullAsDefault: true })`,
        )
        .replace("'/srv/host/registrar-plugins'", JSON.stringify(plugins))
        // The optional ports need the host's own directory and ledger (examples/host-app has both).
        .replace(ports, '\n'),
      // What a supervisor does at the end.
      "process.kill(process.pid, 'SIGTERM');",
    ].join('\n');
    expect(
      await runSnippet('embedding', code, { RESELLER_MASTER_KEY: Buffer.alloc(32, 9).toString('base64') }),
    ).toEqual([]);
    const db = knex({ client: 'better-sqlite3', connection: { filename: file }, useNullAsDefault: true });
    try {
      const shop = await db('resellers')
        .join('reseller_groups', 'reseller_groups.id', 'resellers.group_id')
        .where({ email: 'shop@example.com' })
        .first('resellers.id', 'reseller_groups.name as group');
      expect(shop).toMatchObject({ group: 'retail' });
      expect(await db('credit_accounts').where({ reseller_id: shop.id }).first('balance_minor')).toEqual({
        balance_minor: 75_00,
      });
    } finally {
      await db.destroy();
    }
  });
});
