import { formatAmount, parseAmount } from '../core/common/money';
import type { CliRuntime } from './cli-program';

export function creditCommands(cli: CliRuntime): void {
  const credit = cli.group('credit', "resellers' prepaid credit");

  cli
    .command(
      credit,
      'add <email> <amount>',
      'top up the credit; a negative amount is an adjustment (the balance never goes below zero)',
    )
    .option('--note <text>', 'why, for the ledger')
    .action(
      cli.action<{ note?: string }>(async ({ module }, [email, amountText], options) => {
        const reseller = await module.services.resellers.byEmail(email);
        const amount = parseAmount(amountText);
        const { entry, balance } = await module.services.credit.adjust(reseller.id, amount, options.note ?? null);
        return {
          email: reseller.email,
          amount: formatAmount(entry.amount),
          kind: entry.kind,
          balance: formatAmount(balance),
        };
      }),
    );

  cli.command(credit, 'show <email>', 'the balance, whether the ledger adds up to it, and the recent entries').action(
    cli.action(async ({ module }, [email]) => {
      const reseller = await module.services.resellers.byEmail(email);
      const check = await module.services.credit.verify(reseller.id);
      const entries = await module.services.credit.entries(reseller.id, 20);
      return {
        email: reseller.email,
        balance: formatAmount(check.balance),
        consistent: check.consistent,
        recentEntries: entries.map((e) => ({
          amount: formatAmount(e.amount),
          kind: e.kind,
          orderId: e.orderId,
          note: e.note,
          at: e.createdAt.toISOString(),
        })),
      };
    }),
  );
}
