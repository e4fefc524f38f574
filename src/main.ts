#!/usr/bin/env node
import { loadSettings } from './config/settings';
import { seedDemo, shouldSeedDemo } from './demo-seed';
import { databaseStartupProblem } from './infra/db/errors';
import { galeraSettingProblems } from './infra/db/galera-settings';
import { createResellerModule } from './module';
import { type RunningServer, startServer } from './server';
import { handleShutdownSignals } from './shutdown-signals';

/**
 * The stand-alone server: a small host built on the public module API, nothing more. In production
 * it runs compiled, under plain node (`npm run serve`, or the `domain-reseller` bin; docs/operations.md).
 */
let databaseUrl: string | undefined;

async function main(): Promise<void> {
  const settings = loadSettings();
  databaseUrl = settings.databaseUrl;
  const module = await createResellerModule({ settings: { ...settings } });
  const { logger } = module;
  const applied = await module.migrate();
  if (applied.length > 0) logger.info({ applied }, 'database migrated');
  // Said at start, not only by /readyz: a TLD on a plugin that is not installed fails every order for it.
  const { checks } = await module.readiness();
  if (checks.plugins !== 'ok')
    logger.error({ plugins: checks.plugins }, `not ready until this is fixed (/readyz answers 503): ${checks.plugins}`);
  for (const problem of await galeraSettingProblems(module.knex))
    logger.warn({ database: problem }, `Galera node setting (docs/operations.md, "Galera"): ${problem}`);

  // Process metrics sample the event loop and watch the garbage collector: only worth it when /metrics is served.
  if (settings.metrics) module.metrics.collectProcessMetrics();
  // The handler is in place before the background jobs start and the port listens: a signal's default
  // action ends the process at once, cutting off whatever a job pass or the first requests were doing.
  // A signal during the start-up waits for it to finish, so that the shutdown never closes the database
  // under the demo seed's feet.
  let startedUp: (running: RunningServer) => void = () => {};
  const started = new Promise<RunningServer>((resolve) => {
    startedUp = resolve;
  });
  handleShutdownSignals({
    logger,
    shutdown: (signal) =>
      started
        .then((running) => running.shutdown(signal))
        .then(
          (finished) => process.exit(finished ? 0 : 1),
          (error) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        ),
    forceExit: (code) => process.exit(code),
  });
  // Order reconciliation, domain sync, transfer sync and the API log purge, each claimed so that every process can run them (BACKGROUND_JOBS=false: off).
  module.startBackgroundJobs();

  const running = await startServer(module, settings);
  // Only once listening: a start that cannot listen (the port taken) must not spend the demo key,
  // which is shown once and would never be printed again.
  const demo = shouldSeedDemo(settings) ? await seedDemo(module) : undefined;
  const base = `http://${settings.host === '0.0.0.0' ? '127.0.0.1' : settings.host}:${running.port}${settings.basePath}`;
  logger.info(
    { url: base, port: running.port, backgroundJobs: settings.backgroundJobs },
    'domain reseller API listening',
  );
  if (demo) printDemo(base, demo.email, demo.apiKey);
  if (settings.console)
    await printConsole(module, `${base.slice(0, base.length - settings.basePath.length)}${settings.consolePath}/`);
  if (settings.portal)
    process.stderr.write(
      `Reseller portal: ${base.slice(0, base.length - settings.basePath.length)}${settings.portalPath}/\n  A reseller signs in after following its invitation: npm run admin -- reseller invite EMAIL\n\n`,
    );
  startedUp(running);
}

/** The same call as the curl line, in node alone: the token for this UTC hour, then a GET with fetch. */
const NODE_TRY_IT = `node -e 'const [email, key, url] = process.argv.slice(1); const hour = new Date().toISOString().slice(2, 13).replace("T", " "); const hex = require("node:crypto").createHmac("sha256", email + ":" + hour).update(key).digest("hex"); fetch(url, { headers: { username: email, token: Buffer.from(hex).toString("base64") } }).then((r) => r.text()).then(console.log)'`;

function printDemo(base: string, email: string, apiKey: string): void {
  // Printed to stderr so that stdout stays the JSON log stream.
  const lines = [
    '',
    'Demo reseller created (the API key is shown only this once):',
    `  username: ${email}`,
    `  API key:  ${apiKey}`,
    '',
    'Try it (the token is HMAC-SHA256 of the key under "<email>:<yy-mm-dd HH>" in UTC, hex, then base64):',
    `  EMAIL='${email}' KEY='${apiKey}'; TOKEN=$(printf %s "$KEY" | openssl dgst -sha256 -hmac "$EMAIL:$(date -u +'%y-%m-%d %H')" | sed 's/^.*= //' | tr -d '\\n' | base64 | tr -d '\\n'); curl -s -H "username: $EMAIL" -H "token: $TOKEN" ${base}/billing/credits`,
    '',
    'Or with nothing but node (no openssl or curl needed):',
    `  ${NODE_TRY_IT} '${email}' '${apiKey}' ${base}/billing/credits`,
    '',
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** How to open the console: the address, and the command that creates the first operator when there is none. */
async function printConsole(module: Awaited<ReturnType<typeof createResellerModule>>, url: string): Promise<void> {
  const operators = await module.services.operators.list();
  const lines = ['', `Operator console: ${url}`];
  if (operators.length === 0)
    lines.push(
      '  No operator exists yet. Create the first one (it prints a one-time link to set the password):',
      '  npm run admin -- operator create you@example.com --role admin',
    );
  process.stderr.write(`${lines.join('\n')}\n\n`);
}

main().catch((error) => {
  const explained = databaseUrl === undefined ? undefined : databaseStartupProblem(error, databaseUrl);
  process.stderr.write(`${explained ?? (error instanceof Error ? error.message : String(error))}\n`);
  process.exit(1);
});
