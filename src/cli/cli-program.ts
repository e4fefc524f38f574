import type { Writable } from 'node:stream';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadSettings } from '../config/settings';
import { type Actor, actingAs } from '../core/audit/audit-log';
import type { MasterKeyPolicy } from '../infra/crypto/master-key';
import { createLogger } from '../infra/logging';
import { createResellerModule, type ResellerModule } from '../module';
import { checkDatabaseReady } from './database-check';
import { formatOutput, OUTPUT_FORMATS, type OutputFormat } from './output-format';

export interface CliIo {
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
}

/** What a command's handler gets: the module opened on the configured database, and the streams. */
export interface CommandContext {
  readonly module: ResellerModule;
  readonly io: CliIo;
}

/**
 * A command's work: its positional arguments in declared order, its options as commander parsed
 * them. The value it returns is printed on stdout, as JSON or, with `--format table`, as a table
 * (src/cli/output-format.ts): return plain data, never print it yourself.
 */
export type CommandHandler<Options = Record<string, never>> = (
  context: CommandContext,
  args: string[],
  options: Options,
) => Promise<unknown>;

/** Exit codes: 0 done, 1 the command failed, 2 the command line was wrong. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * A command line the handler cannot use (a flag value it cannot read, a missing argument that
 * depends on another). Reported like commander's own parse errors: the message, the command's
 * usage, exit code 2.
 */
export class UsageError extends Error {}

/**
 * An option-argument parser for commander: the parse function's errors become commander's
 * "option '--x <n>' argument 'y' is invalid" usage error before any database is opened.
 */
export function flagValue<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    }
  };
}

/** A whole number within bounds, for flags like `--limit` and `--concurrency`. */
export function wholeNumber(flag: string, min = 0, max = 9999): (text: string) => number {
  return flagValue((text) => {
    if (!/^\d{1,6}$/.test(text)) throw new Error(`--${flag} must be a whole number`);
    const n = Number(text);
    if (n < min || n > max) throw new Error(`--${flag} must be from ${min} to ${max}`);
    return n;
  });
}

/** The declared flag nearest to a mistyped one (at most a third of its letters apart), for a suggestion. */
export function closestFlag(typed: string, flags: readonly string[]): string | undefined {
  let best: { flag: string; distance: number } | undefined;
  for (const flag of flags) {
    const distance = editDistance(typed, flag);
    if (distance <= Math.max(1, Math.floor(flag.length / 3)) && (!best || distance < best.distance))
      best = { flag, distance };
  }
  return best?.flag;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length]!;
}

/** What a command needs of the database: migrated (most), anything (`migrate`), or one whose master key is lost. */
type DatabaseUse = 'ready' | 'any' | 'lost-master-key';
const MASTER_KEY_POLICY: Record<DatabaseUse, MasterKeyPolicy> = {
  ready: 'existing-only',
  any: 'create-if-empty',
  'lost-master-key': 'replace-lost',
};

/**
 * One run of the CLI: the commander program, and the way each command's action opens the
 * module, runs its handler and leaves its result to be printed.
 */
export class CliRuntime {
  readonly program: Command;
  private result: { readonly value: unknown } | undefined;

  constructor(
    readonly io: CliIo,
    version: string,
  ) {
    this.program = new Command('reseller-admin')
      .version(version, '-V, --version', 'print the version')
      .helpOption('-h, --help', 'show help for the command')
      .helpCommand(false)
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      })
      .showSuggestionAfterError(true)
      .showHelpAfterError('(reseller-admin --help lists the commands)')
      .addOption(
        new Option('--format <format>', 'how results are printed: json (for scripts) or table (for people)')
          .choices(OUTPUT_FORMATS)
          .default('json'),
      )
      .option(
        '--actor <name>',
        'who runs the command, for the audit log (default: RESELLER_ADMIN_ACTOR, else the shell user)',
      );
  }

  /**
   * A command group (`reseller-admin group …`): its subcommands are added to it; without one it
   * prints its own help.
   */
  group(name: string, description: string): Command {
    return this.program.command(name).description(description).helpCommand(false).showHelpAfterError(true);
  }

  /** A leaf command under `parent` (the program or a group); a usage error prints its help. */
  command(parent: Command, nameAndArgs: string, description: string): Command {
    const command = parent
      .command(nameAndArgs)
      .description(description)
      .showHelpAfterError(true)
      .allowExcessArguments(false);
    // Commander reports a missing required option before an unknown one, so `--grup retail` was
    // answered "required option '--group' not specified": the unknown option, with a suggestion, comes first.
    const parseOptions = command.parseOptions.bind(command);
    command.parseOptions = (argv) => {
      const parsed = parseOptions(argv);
      // A command with subcommands of its own (`log <email>` and `log purge`) is also asked to parse the
      // options it hands on to the subcommand: there commander's own unknown-option check applies.
      if (command.commands.length > 0) return parsed;
      const unknown = parsed.unknown.find((arg) => arg.startsWith('--') && arg !== '--help' && arg !== '--');
      if (unknown) {
        const flag = unknown.split('=')[0]!;
        const near = closestFlag(
          flag,
          command.options.map((o) => o.long).filter((l): l is string => l !== undefined),
        );
        command.error(`error: unknown option '${flag}'${near ? `\n(Did you mean ${near}?)` : ''}`, {
          exitCode: EXIT.usage,
          code: 'commander.unknownOption',
        });
      }
      return parsed;
    };
    return command;
  }

  /** Turns a handler into a commander action that opens the checked database first. */
  action<Options>(handler: CommandHandler<Options>): (...params: unknown[]) => Promise<void> {
    return this.actionOn('ready', handler);
  }

  /**
   * Like `action`, for `master-key replace-lost` alone: the module opens although the master key
   * does not open the stored API keys (a new key file is created when there is none).
   */
  lostMasterKeyAction<Options>(handler: CommandHandler<Options>): (...params: unknown[]) => Promise<void> {
    return this.actionOn('lost-master-key', handler);
  }

  /**
   * Like `action`, for the one command that may create the database and bring its schema up to
   * date (`migrate`): it skips the readiness check.
   */
  migratingAction<Options>(handler: CommandHandler<Options>): (...params: unknown[]) => Promise<void> {
    return this.actionOn('any', handler);
  }

  private actionOn<Options>(
    database: DatabaseUse,
    handler: CommandHandler<Options>,
  ): (...params: unknown[]) => Promise<void> {
    return async (...params) => {
      const command = params[params.length - 1] as Command;
      const args = command.processedArgs.filter((a): a is string => typeof a === 'string');
      const module = await this.open(database);
      try {
        // Every change the command makes is audited, in its own transaction, as made by this actor.
        const actor = cliActor(this.io, this.program.opts().actor as string | undefined);
        this.result = {
          value: await actingAs(actor, () => handler({ module, io: this.io }, args, command.opts() as Options)),
        };
      } catch (error) {
        if (error instanceof UsageError) command.error(`error: ${error.message}`, { exitCode: EXIT.usage });
        throw error;
      } finally {
        await module.close();
      }
    };
  }

  private async open(database: DatabaseUse): Promise<ResellerModule> {
    const settings = loadSettings(this.io.env);
    // Only `migrate` (and the server) may create a database: a mistyped DATABASE_URL must not.
    if (database !== 'any') checkDatabaseReady.beforeConnecting(settings.databaseUrl);
    const module = await createResellerModule({
      settings: { ...settings },
      logger: createLogger('warn', this.io.stderr as never, settings.logFormat),
      // Issue 31: a read-only command once wrote a new key beside a moved database; only `migrate` creates one.
      masterKeyPolicy: MASTER_KEY_POLICY[database],
    }).catch((error: unknown) => {
      throw checkDatabaseReady.explained(error, settings.databaseUrl);
    });
    // A broken plugin is disabled, not fatal: the command runs, and the operator is told.
    for (const { problem } of module.registrars.failures())
      this.io.stderr.write(`warning: a registrar plugin failed to load and is disabled: ${problem}\n`);
    if (database !== 'any') {
      try {
        await checkDatabaseReady.schema(module.knex, settings.databaseUrl);
      } catch (error) {
        await module.close();
        throw error;
      }
    }
    return module;
  }

  /** Parses and runs; returns the exit code. */
  async run(argv: readonly string[]): Promise<number> {
    try {
      await this.program.parseAsync([...argv], { from: 'user' });
    } catch (error) {
      if (error instanceof CommanderError) {
        // --help and --version print and succeed; a group run without a subcommand prints its help and fails.
        return error.code === 'commander.helpDisplayed' || error.code === 'commander.version' ? EXIT.ok : EXIT.usage;
      }
      this.io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
      return EXIT.failed;
    }
    if (this.result) this.io.stdout.write(formatOutput(this.result.value, this.program.opts().format as OutputFormat));
    return EXIT.ok;
  }
}

/**
 * Who runs a CLI command, for the audit log: `--actor`, else RESELLER_ADMIN_ACTOR (a wrapper script
 * that knows the person), else the shell user (the server's shell is the operator's own).
 */
export function cliActor(io: CliIo, given?: string): Actor {
  const name = [given, io.env.RESELLER_ADMIN_ACTOR, io.env.SUDO_USER, io.env.USER, io.env.LOGNAME]
    .map((n) => n?.trim())
    .find((n) => n);
  return { kind: 'cli', id: null, label: `cli:${(name ?? 'unknown').slice(0, 200)}` };
}
