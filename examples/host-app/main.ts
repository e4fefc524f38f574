/**
 * The host platform of host-app.ts as a server: `node --import tsx examples/host-app/main.ts` (one
 * process, so that a signal reaches it; under `npx tsx` a SIGTERM to npx orphans it), then
 * http://127.0.0.1:3000/dashboard (the host) and http://127.0.0.1:3000/reseller-api/… (the module).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import knex from 'knex';
import { createHostApp } from './host-app';

async function main(): Promise<void> {
  mkdirSync('./data', { recursive: true });
  // The host's own connection: the module's tables go into the host's database beside its own.
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: './data/host-app.sqlite' },
    useNullAsDefault: true,
  });
  const host = await createHostApp({
    db,
    masterKey: process.env.RESELLER_MASTER_KEY ?? randomBytes(32).toString('base64'),
  });
  const { email, apiKey } = await host.signUp(`shop-${Date.now()}@host.example`);
  await host.topUp(email, 100_00);
  const server = host.app.listen(3000, '127.0.0.1', () => {
    process.stderr.write(`host listening on http://127.0.0.1:3000; reseller ${email}, API key ${apiKey}\n`);
  });
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => server.close(() => void host.close().then(() => db.destroy())));
}

void main();
