/**
 * The host platform of host-app.ts as a server: `node --import tsx examples/host-app/main.ts` (one
 * process, so that a signal reaches it; under `npx tsx` a SIGTERM to npx orphans it), then
 * http://127.0.0.1:3000/dashboard (the host) and http://127.0.0.1:3000/reseller-api/… (the module).
 * PORT changes the port (0: any free one); the module reads its other settings from the
 * environment like the stand-alone server (LOG_LEVEL, SANDBOX_LATENCY_MS, …).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import knex from 'knex';
import { loadSettings } from '../../src/index';
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
    settings: { ...loadSettings(process.env) },
  });
  const { email, apiKey } = await host.signUp(`shop-${Date.now()}@host.example`);
  await host.topUp(email, 100_00);
  const server = host.app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stderr.write(`host listening on http://127.0.0.1:${port}; reseller ${email}, API key ${apiKey}\n`);
  });
  // The first SIGTERM or Ctrl-C stops taking connections, lets the requests in flight finish, then
  // closes the module (background work, buffered API log) and, last, the host's own connection.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await host.close();
    await db.destroy();
    process.stderr.write('host stopped\n');
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.on(signal, () =>
      stop().catch((error: unknown) => {
        process.stderr.write(`host could not stop cleanly: ${String(error)}\n`);
        process.exitCode = 1;
      }),
    );
}

main().catch((error: unknown) => {
  process.stderr.write(`host could not start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
