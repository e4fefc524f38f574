import { currentActor } from '../core/audit/audit-log';
import type { SyncRoundProgress } from '../core/domain/domain-sync-service';
import type { ResellerModule } from '../module';
import { type CliIo, type CliRuntime, wholeNumber } from './cli-program';

export function syncCommands(cli: CliRuntime): void {
  cli.command(cli.program, 'reconcile', 'settle pending orders with the registrar: complete or refund').action(
    cli.action(async ({ module }) => {
      const reconciliation = await module.reconcile();
      await auditRound(module, 'reconcile.run', { reconciliation });
      return reconciliation;
    }),
  );

  cli
    .command(
      cli.program,
      'sync',
      'one round of what the background jobs do: reconcile pending orders, then domain sync (Active, Grace, ' +
        'Redemption, Expired) and transfer sync (Pending Transfer); progress on stderr',
    )
    .option(
      '--concurrency <n>',
      'registrar calls at once per registrar (default JOB_CONCURRENCY_PER_REGISTRAR)',
      wholeNumber('concurrency', 1, 50),
    )
    .addHelpText('after', '\nSafe beside running servers: each order and domain is claimed by one worker.')
    .action(
      cli.action<{ concurrency?: number }>(async ({ module, io }, _args, options) => {
        const concurrency = options.concurrency ?? module.settings.jobConcurrencyPerRegistrar;
        // Pending orders first: a settled order turns its domain Active, and then it is synced too.
        const reconciliation = await module.reconcile();
        // A round: every domain not synced since the round started, whatever the interval says.
        const syncedBefore = new Date();
        // Batches of several calls per worker: a batch ends when its slowest call does, so small
        // batches leave workers waiting (bench/RESULTS.md, sync at scale).
        const batchSize = Math.max(module.settings.jobBatchSize, concurrency * 4);
        const round = { syncedBefore, concurrencyPerRegistrar: concurrency, batchSize };
        const domains = await module.runSync('domain', { ...round, onProgress: progressLine(io, 'sync') });
        if (domains.total === 0) io.stderr.write('sync: no domains to sync\n');
        const transfers = await module.runSync('transfer', { ...round, onProgress: progressLine(io, 'transfer sync') });
        await auditRound(module, 'sync.run', { reconciliation, domains, transfers });
        return { reconciliation, domains, transfers };
      }),
    );
}

/**
 * One progress line on stderr: rewritten in place on a terminal, otherwise printed about every 5%
 * so that logs stay short. stdout keeps the JSON result alone.
 */
function progressLine(io: CliIo, label: string): (p: SyncRoundProgress) => void {
  const isTty = (io.stderr as { isTTY?: boolean }).isTTY === true;
  let lastPrinted = 0;
  return ({ done, total, failed }) => {
    const line = `${label}: ${done}/${total} domains${failed > 0 ? `, ${failed} failed` : ''}`;
    if (isTty) {
      io.stderr.write(`\r${line}${done === total ? '\n' : ''}`);
    } else if (done === total || done - lastPrinted >= Math.max(1, Math.ceil(total / 20))) {
      io.stderr.write(`${line}\n`);
      lastPrinted = done;
    }
  };
}

/**
 * A round run by hand is audited once, with its counts: each order and domain it settles or
 * updates is recorded on the order and the domain, as the background jobs' passes are.
 */
async function auditRound(module: ResellerModule, action: string, result: unknown): Promise<void> {
  await module.services.audit.record(currentActor(), { action, subject: null, after: result });
}
