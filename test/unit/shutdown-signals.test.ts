import { EventEmitter } from 'node:events';
import { handleShutdownSignals } from '../../src/shutdown-signals';
import { recordingLogger } from '../support/fakes';

function setUp() {
  const source = new EventEmitter();
  const logger = recordingLogger();
  const shutdowns: string[] = [];
  const exits: number[] = [];
  let now = 1_000_000;
  handleShutdownSignals({
    source,
    logger,
    now: () => now,
    relayWindowMs: 1000,
    shutdown: (signal) => shutdowns.push(signal),
    forceExit: (code) => exits.push(code),
  });
  return {
    logger,
    shutdowns,
    exits,
    signal: (name: 'SIGTERM' | 'SIGINT') => source.emit(name, name),
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('shutdown signals', () => {
  it('starts one graceful shutdown on the first SIGTERM', () => {
    const t = setUp();
    t.signal('SIGTERM');
    expect(t.shutdowns).toEqual(['SIGTERM']);
    expect(t.exits).toEqual([]);
  });

  it('ignores further SIGTERMs during the shutdown, however late, and logs them', () => {
    const t = setUp();
    t.signal('SIGTERM');
    t.signal('SIGTERM');
    t.advance(20_000);
    t.signal('SIGTERM');
    expect(t.shutdowns).toEqual(['SIGTERM']);
    expect(t.exits).toEqual([]);
    expect(t.logger.entries.filter((e) => e.msg?.startsWith('already shutting down'))).toHaveLength(2);
  });

  it('treats a SIGINT within the relay window as a copy of the first signal (Ctrl-C under npm or tsx)', () => {
    const t = setUp();
    t.signal('SIGINT');
    t.advance(50);
    t.signal('SIGINT');
    t.signal('SIGTERM');
    expect(t.shutdowns).toEqual(['SIGINT']);
    expect(t.exits).toEqual([]);
  });

  it('exits at once with 130 on a second Ctrl-C after the relay window, and says so', () => {
    const t = setUp();
    t.signal('SIGINT');
    t.advance(1500);
    t.signal('SIGINT');
    expect(t.shutdowns).toEqual(['SIGINT']);
    expect(t.exits).toEqual([130]);
    expect(t.logger.warnings).toEqual([
      { obj: { signal: 'SIGINT' }, msg: 'second interrupt: exiting now, without waiting for the graceful shutdown' },
    ]);
  });

  it('forces the exit on a Ctrl-C that follows a SIGTERM, too', () => {
    const t = setUp();
    t.signal('SIGTERM');
    t.advance(5000);
    t.signal('SIGINT');
    expect(t.exits).toEqual([130]);
  });
});
