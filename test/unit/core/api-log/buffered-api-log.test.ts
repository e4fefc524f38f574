import { BufferedApiLog, type ApiLogEntry, type ApiLogRepository } from '../../../../src/core/api-log/api-log';
import { recordingLogger } from '../../../support/fakes';

const entry = (n: number): ApiLogEntry => ({
  resellerId: 'r1',
  at: new Date(0),
  method: 'GET',
  route: '/tlds',
  domain: null,
  status: 200,
  durationMs: 1,
  error: null,
  requestId: `req-${n}`,
  clientIp: null,
});

function repository(options: { failing?: () => boolean; held?: () => Promise<void> } = {}) {
  const batches: ApiLogEntry[][] = [];
  let attempts = 0;
  const repo: ApiLogRepository = {
    insertMany: async (entries) => {
      attempts++;
      if (options.failing?.()) throw new Error('database unavailable');
      await options.held?.();
      batches.push([...entries]);
    },
    find: async () => [],
    purge: async () => 0,
  };
  return { repo, batches, attempts: () => attempts, written: () => batches.flat().map((e) => e.requestId) };
}

/** Lets every write that can start and finish now do so. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('BufferedApiLog', () => {
  it('writes nothing on the request path: entries wait for a flush, then go in batches', async () => {
    const { repo, batches, written } = repository();
    const log = new BufferedApiLog(repo, recordingLogger(), { flushMs: 1000, batchSize: 2, bufferMax: 100 });
    for (let i = 1; i <= 5; i++) log.record(entry(i));
    expect(batches).toEqual([]);
    await log.flush();
    expect(batches.map((b) => b.length)).toEqual([2, 2, 1]);
    expect(written()).toEqual(['req-1', 'req-2', 'req-3', 'req-4', 'req-5']);
    expect(log.pending).toBe(0);
  });

  it('under steady load writes full batches as they fill and leaves the rest for the timer', async () => {
    // Each insert waits until the test lets it finish, as a statement on a busy database does.
    let finish: () => void = () => undefined;
    const { repo, batches, written } = repository({ held: () => new Promise<void>((resolve) => (finish = resolve)) });
    const log = new BufferedApiLog(repo, recordingLogger(), { flushMs: 60_000, batchSize: 3, bufferMax: 100 });
    log.start();
    for (let i = 1; i <= 3; i++) log.record(entry(i));
    await settled();
    log.record(entry(4));
    log.record(entry(5));
    finish();
    await settled();
    // Not a statement for the two that arrived while the first was written.
    expect(batches.map((b) => b.length)).toEqual([3]);
    expect(log.pending).toBe(2);
    log.record(entry(6));
    await settled();
    finish();
    await settled();
    expect(batches.map((b) => b.length)).toEqual([3, 3]);
    log.record(entry(7));
    const closed = log.close();
    await settled();
    finish();
    await closed;
    expect(batches.map((b) => b.length)).toEqual([3, 3, 1]);
    expect(written()).toEqual(['req-1', 'req-2', 'req-3', 'req-4', 'req-5', 'req-6', 'req-7']);
  });

  it('a flush writes what was buffered when it began, not what keeps arriving while it runs', async () => {
    let finish: () => void = () => undefined;
    const { repo, batches } = repository({ held: () => new Promise<void>((resolve) => (finish = resolve)) });
    const log = new BufferedApiLog(repo, recordingLogger(), { flushMs: 60_000, batchSize: 3, bufferMax: 100 });
    log.record(entry(1));
    log.record(entry(2));
    const flushed = log.flush();
    await settled();
    log.record(entry(3));
    log.record(entry(4));
    finish();
    await flushed;
    expect(batches.map((b) => b.map((e) => e.requestId))).toEqual([['req-1', 'req-2']]);
    expect(log.pending).toBe(2);
    // A flush asked for now is a new one, and takes them.
    const again = log.flush();
    await settled();
    finish();
    await again;
    expect(batches.map((b) => b.length)).toEqual([2, 2]);
  });

  it('after a failed write does not try again on every request: the timer does', async () => {
    let down = true;
    const { repo, attempts, written } = repository({ failing: () => down });
    const log = new BufferedApiLog(repo, recordingLogger(), { flushMs: 60_000, batchSize: 2, bufferMax: 100 });
    log.start();
    for (let i = 1; i <= 2; i++) log.record(entry(i));
    await settled();
    expect(attempts()).toBe(1);
    for (let i = 3; i <= 8; i++) log.record(entry(i));
    await settled();
    expect(attempts()).toBe(1);
    down = false;
    await log.flush();
    expect(written()).toHaveLength(8);
    for (let i = 9; i <= 10; i++) log.record(entry(i));
    await settled();
    expect(written()).toHaveLength(10);
    await log.close();
  });

  it('keeps the entries while the database refuses them and writes them once it takes them again', async () => {
    let down = true;
    const { repo, written } = repository({ failing: () => down });
    const logger = recordingLogger();
    const log = new BufferedApiLog(repo, logger, { flushMs: 1000, bufferMax: 100 });
    log.record(entry(1));
    await log.flush();
    await log.flush();
    expect(log.pending).toBe(1);
    expect(logger.warnings).toHaveLength(1);
    down = false;
    log.record(entry(2));
    await log.flush();
    expect(written()).toEqual(['req-1', 'req-2']);
  });

  it('drops the oldest entries beyond bufferMax during an outage, and says how many', async () => {
    const { repo } = repository({ failing: () => true });
    const dropped: number[] = [];
    const log = new BufferedApiLog(
      repo,
      recordingLogger(),
      { flushMs: 1000, bufferMax: 3 },
      { apiLogDropped: (n) => dropped.push(n) },
    );
    for (let i = 1; i <= 5; i++) log.record(entry(i));
    expect(log.pending).toBe(3);
    expect(dropped).toEqual([1, 1]);
  });

  it('writes the bodies redacted and capped, and during an outage keeps only that, not the whole request', async () => {
    let failing = true;
    const { repo, batches } = repository({ failing: () => failing });
    const log = new BufferedApiLog(repo, recordingLogger(), { flushMs: 1000, batchSize: 10, bufferMax: 100 });
    const huge = { eppcode: 'SECRET', note: 'x'.repeat(50_000) };
    log.record({ ...entry(1), requestParams: huge, replyText: '{"eppcode":"SECRET"}' });
    await log.flush(); // refused: the log is now failing
    log.record({ ...entry(2), requestParams: huge, replyText: '"ok"' });
    const kept = (log as unknown as { buffer: Array<Record<string, unknown>> }).buffer;
    expect(kept[1]!.requestParams).toBeUndefined();
    expect(String(kept[1]!.requestBody).length).toBeLessThan(5_000);
    failing = false;
    await log.flush();
    const [first, second] = batches.flat();
    for (const e of [first!, second!]) {
      expect(e.requestBody).toContain('"eppcode":"[redacted]"');
      expect(e.requestBody!.length).toBeLessThan(5_000);
      expect(JSON.stringify(e)).not.toContain('SECRET');
      expect(e).not.toHaveProperty('requestParams');
    }
    expect([first!.replyBody, second!.replyBody]).toEqual(['{"eppcode":"[redacted]"}', '"ok"']);
  });

  it('bounds the stored error message', () => {
    const { repo } = repository();
    const log = new BufferedApiLog(repo, recordingLogger(), { flushMs: 1000, bufferMax: 10 });
    log.record({ ...entry(1), error: 'x'.repeat(2000) });
    return log.close().then(() => expect(log.pending).toBe(0));
  });

  it('says how many entries are lost when the database still refuses them as it closes', async () => {
    const { repo } = repository({ failing: () => true });
    const logger = recordingLogger();
    const dropped: number[] = [];
    const log = new BufferedApiLog(
      repo,
      logger,
      { flushMs: 60_000, bufferMax: 10 },
      { apiLogDropped: (n) => dropped.push(n) },
    );
    log.start();
    for (let i = 1; i <= 3; i++) log.record(entry(i));
    await log.close();
    expect(logger.entries.filter((e) => e.level === 'error')).toEqual([
      { level: 'error', obj: { lost: 3 }, msg: expect.stringContaining('lost') },
    ]);
    expect(dropped).toEqual([3]);
    expect(log.pending).toBe(0);
  });

  it('writes what is left on close', async () => {
    const { repo, written } = repository();
    const log = new BufferedApiLog(repo, recordingLogger(), { flushMs: 60_000, bufferMax: 10 });
    log.start();
    log.record(entry(1));
    await log.close();
    expect(written()).toEqual(['req-1']);
  });
});
