import { execFileSync } from 'node:child_process';
import path from 'node:path';
import type { TOKENS } from '../../src/core/tokens';
import type { createResellerModule } from '../../src/module';

export type ModuleFactory = typeof createResellerModule;

/**
 * Another checkout's module (BENCH_BASE_MODULE: its src/module.ts), for a before/after comparison
 * in one run: its factory, its own tokens (a container knows only its own) and its commit; none
 * when the variable is unset.
 */
export async function baseModule(): Promise<
  { readonly factory: ModuleFactory; readonly tokens: typeof TOKENS; readonly commit: string } | undefined
> {
  const entry = process.env.BENCH_BASE_MODULE;
  if (!entry) return undefined;
  const root = path.dirname(entry);
  return {
    factory: ((await import(entry)) as { createResellerModule: ModuleFactory }).createResellerModule,
    tokens: ((await import(path.join(root, 'core', 'tokens'))) as { TOKENS: typeof TOKENS }).TOKENS,
    commit: execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim(),
  };
}
