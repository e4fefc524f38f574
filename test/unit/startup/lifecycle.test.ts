import { Lifecycle } from '../../../src/startup/lifecycle';

/** createResellerModule's stopping (src/startup/lifecycle.ts): what `close()` and a failed start run. */
describe('the module lifecycle', () => {
  it('stops what was started last first, so the database opened first closes last', async () => {
    const lifecycle = new Lifecycle();
    const stopped: string[] = [];
    for (const part of ['database', 'plugins', 'api log', 'jobs']) lifecycle.onStop(() => void stopped.push(part));
    await lifecycle.stop();
    expect(stopped).toEqual(['jobs', 'api log', 'plugins', 'database']);
  });

  it('waits for each stop step before the next begins', async () => {
    const lifecycle = new Lifecycle();
    const stopped: string[] = [];
    lifecycle.onStop(() => void stopped.push('database'));
    lifecycle.onStop(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      stopped.push('jobs');
    });
    await lifecycle.stop();
    expect(stopped).toEqual(['jobs', 'database']);
  });

  it('runs every step once however often it is stopped, and a later stop waits for the first', async () => {
    const lifecycle = new Lifecycle();
    let runs = 0;
    let finish!: () => void;
    lifecycle.onStop(
      () =>
        new Promise<void>((resolve) => {
          runs += 1;
          finish = resolve;
        }),
    );
    const first = lifecycle.stop();
    let secondDone = false;
    const second = lifecycle.stop().then(() => {
      secondDone = true;
    });
    await Promise.resolve();
    expect(secondDone).toBe(false);
    finish();
    await Promise.all([first, second]);
    await lifecycle.stop();
    expect(runs).toBe(1);
  });

  it('runs every step when one fails and reports that failure', async () => {
    const lifecycle = new Lifecycle();
    const stopped: string[] = [];
    const failure = new Error('the API log could not be written');
    lifecycle.onStop(() => void stopped.push('database'));
    lifecycle.onStop(() => {
      throw failure;
    });
    lifecycle.onStop(() => void stopped.push('jobs'));
    await expect(lifecycle.stop()).rejects.toBe(failure);
    expect(stopped).toEqual(['jobs', 'database']);
    // A later close reports the same failure without stopping anything again.
    await expect(lifecycle.stop()).rejects.toBe(failure);
    expect(stopped).toEqual(['jobs', 'database']);
  });

  it('reports the first failure when several steps fail', async () => {
    const lifecycle = new Lifecycle();
    lifecycle.onStop(() => Promise.reject(new Error('started first, stopped last')));
    lifecycle.onStop(() => Promise.reject(new Error('started last, stopped first')));
    await expect(lifecycle.stop()).rejects.toThrow('started last, stopped first');
  });

  it('hands every step what close() was asked for', async () => {
    const lifecycle = new Lifecycle();
    const seen: unknown[] = [];
    lifecycle.onStop((options) => void seen.push(options.jobsWaitMs));
    await lifecycle.stop({ jobsWaitMs: 250 });
    expect(seen).toEqual([250]);
  });
});
