import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const CORE = path.join(__dirname, '../../src/core');
const PLUGINS = path.join(__dirname, '../../plugins');
/** A plugin sees the platform only through the contract and the client SDK (docs/plugins.md). */
const PLUGIN_FORBIDDEN =
  /from ['"](koa|@koa\/[a-z-]+|knex|mysql2|better-sqlite3|pino)['"]|from ['"](\.\.\/)+src\/(?!core\/registrar\/plugin['"]|client['"])/;
const FORBIDDEN =
  /from ['"](koa|@koa\/[a-z-]+|knex|mysql2|better-sqlite3|pino|prom-client|node:fs|fs)['"]|from ['"](\.\.\/)+(infra|http|cli|config)\//;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('layering', () => {
  it('keeps src/core free of adapters: no koa, knex, drivers, pino, prom-client, fs, infra, http, cli or config imports', () => {
    const offenders = files(CORE).filter((file) => FORBIDDEN.test(readFileSync(file, 'utf8')));
    expect(offenders.map((f) => path.relative(CORE, f))).toEqual([]);
  });

  it('keeps bundled plugins on the plugin contract and the client SDK: no knex, koa, drivers or other platform modules', () => {
    const offenders = files(PLUGINS).filter((file) => PLUGIN_FORBIDDEN.test(readFileSync(file, 'utf8')));
    expect(offenders.map((f) => path.relative(PLUGINS, f))).toEqual([]);
  });
});

describe('publishing', () => {
  // ADR 15: the unit of work's outbox is the only way to publish; the dispatcher alone feeds subscribers.
  const DISPATCH = new Set(['events/event-dispatcher.ts', 'common/events.ts']);
  it('leaves handing events to subscribers to the outbox dispatcher: no service calls EventBus.deliver or writes the outbox table', () => {
    const offenders = files(CORE).filter(
      (file) =>
        !DISPATCH.has(path.relative(CORE, file)) && /\.deliver\(|events\.insert\(/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((f) => path.relative(CORE, f))).toEqual([]);
  });

  it('gives no service of the core an event bus: only subscribers and the dispatcher name EventBus', () => {
    const allowed = new Set([...DISPATCH, 'search/own-orders.ts', 'mail/notifications.ts', 'tokens.ts']);
    const offenders = files(CORE).filter(
      (file) => !allowed.has(path.relative(CORE, file)) && /\bEventBus\b/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((f) => path.relative(CORE, f))).toEqual([]);
  });
});
