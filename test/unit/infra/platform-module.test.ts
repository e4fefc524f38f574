import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { providePlatformTo } from '../../../src/infra/plugins/platform-module';

/** Node 22.15+, 23.5+ and every Node 24 have it; on Node 20 the platform falls back to wrapping Module._resolveFilename. */
const hasRegisterHooks = typeof (Module as unknown as { registerHooks?: unknown }).registerHooks === 'function';
const withRegisterHooks = hasRegisterHooks ? it : it.skip;
const skipped = hasRegisterHooks
  ? ''
  : ` (skipped: Node ${process.version} has no module.registerHooks, so the fallback wrapping it is expected here)`;

type Internals = { _resolveFilename: unknown; createRequire: (file: string) => NodeJS.Require };

describe('the platform module plugins require', () => {
  let root: string;
  let outside: string;
  beforeAll(() => {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'platform-module-')));
    root = path.join(dir, 'plugins', 'probe');
    outside = path.join(dir, 'elsewhere');
    mkdirSync(root, { recursive: true });
    mkdirSync(outside);
  });
  afterAll(() => rmSync(path.dirname(path.dirname(root)), { recursive: true, force: true }));

  it('installs its resolution once per process, even when a test runner evaluates the file again', () => {
    const seen = Module as unknown as Internals & { registerHooks?: (...args: unknown[]) => unknown };
    providePlatformTo(root);
    const installed = seen._resolveFilename;
    const registerHooks = hasRegisterHooks ? jest.spyOn(seen as Required<typeof seen>, 'registerHooks') : undefined;
    try {
      let again!: typeof import('../../../src/infra/plugins/platform-module');
      jest.isolateModules(() => {
        again = require('../../../src/infra/plugins/platform-module');
      });
      again.providePlatformTo(path.join(path.dirname(root), 'second'));
      // Neither one more hook (Node 22.15+, 24) nor one more wrapper (Node 20).
      expect(seen._resolveFilename).toBe(installed);
      if (registerHooks) expect(registerHooks).not.toHaveBeenCalled();
    } finally {
      registerHooks?.mockRestore();
    }
  });

  withRegisterHooks(`leaves Module._resolveFilename untouched when a plugin root is registered${skipped}`, () => {
    // The module object this file and the platform code see (jest gives both the same one) and Node's own.
    const seen = Module as unknown as Internals;
    const real = process.getBuiltinModule('node:module') as unknown as Internals;
    const before = { seen: seen._resolveFilename, real: real._resolveFilename };

    providePlatformTo(root);

    expect(seen._resolveFilename).toBe(before.seen);
    expect(real._resolveFilename).toBe(before.real);
  });

  withRegisterHooks(`answers 'domain-reseller' through the hook, for files under a plugin root only${skipped}`, () => {
    providePlatformTo(root);
    // Node's own require (jest's does not go through Node's resolution); resolving only, nothing is loaded.
    const real = process.getBuiltinModule('node:module') as unknown as Internals;
    const fromPlugin = real.createRequire(path.join(root, 'index.js'));
    expect(fromPlugin.resolve('domain-reseller')).toBe(require.resolve('../../../src/index'));
    expect(fromPlugin.resolve('domain-reseller/client')).toBe(require.resolve('../../../src/client/index'));
    expect(() => real.createRequire(path.join(outside, 'index.js')).resolve('domain-reseller')).toThrow(
      expect.objectContaining({ code: 'MODULE_NOT_FOUND' }),
    );
    // A folder whose name merely starts like the root's is not inside it.
    expect(() => real.createRequire(`${root}-other${path.sep}index.js`).resolve('domain-reseller')).toThrow(
      expect.objectContaining({ code: 'MODULE_NOT_FOUND' }),
    );
  });
});
