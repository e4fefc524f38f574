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

function repository(options: { failing?: () => boolean } = {}) {
  const batches: ApiLogEntry[][] = [];
  const repo: ApiLogRepository = {
    insertMany: async (entries) => {
      if (options.failing?.()) throw new Error('database unavailable');
      batches.push([...entries]);
    },
    find: async () => [],
    purge: async () => 0,
  };
  return { repo, batches, written: () => batches.flat().map((e) => e.requestId) };
}

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

  it('bounds the stored error message', () => {
    const { repo } = repository();
    const log = new BufferedApiLog(repo, recordingLogger(), { flushMs: 1000, bufferMax: 10 });
    log.record({ ...entry(1), error: 'x'.repeat(2000) });
    return log.close().then(() => expect(log.pending).toBe(0));
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
