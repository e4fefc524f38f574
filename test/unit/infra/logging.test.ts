import { Writable } from 'node:stream';
import { createLogger, currentLogContext, redactSecrets, runWithLogContext } from '../../../src/infra/logging';
import { prettyLine } from '../../../src/infra/log-format';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger('info', stream as never), lines };
}

describe('log redaction', () => {
  it('returns a line without secrets untouched, without copying it', () => {
    const line = { reqId: 'r1', method: 'GET', route: '/billing/credits', status: 200, ms: 1.5, nested: { a: 1 } };
    expect(redactSecrets(line)).toBe(line);
  });

  it.each([
    ['at the top level', { token: 'S3CRET', ok: 1 }],
    ['one level down', { input: { apiKey: 'S3CRET' }, ok: 1 }],
    ['under headers', { req: { headers: { token: 'S3CRET' } }, ok: 1 }],
    ['in a list', { list: [{ eppcode: 'S3CRET' }], ok: 1 }],
    ['deep down', { a: { b: { c: { password: 'S3CRET' } } }, ok: 1 }],
    // The spellings the API log redacts (src/core/api-log/api-log.ts) and the plugins use.
    ['as auth_code', { auth_code: 'S3CRET', ok: 1 }],
    ['as authInfo', { info: { authInfo: 'S3CRET' }, ok: 1 }],
    ['as epp_code', { epp_code: 'S3CRET', ok: 1 }],
    ['as a secret', { secret: 'S3CRET', ok: 1 }],
    ['as a new password', { newPassword: 'S3CRET', ok: 1 }],
    ['as a sealed secret', { endpoint: { sealedSecret: 'S3CRET' }, ok: 1 }],
    ['as a whole object', { contacts: { registrant: { email: 'S3CRET' } }, ok: 1 }],
    [
      'in the statement a database error carries',
      { err: Object.assign(new Error('insert failed'), { sql: "insert into x values ('S3CRET')" }), ok: 1 },
    ],
  ])("replaces a secret %s and leaves the caller's object alone", (_where, line) => {
    const before = JSON.stringify(line);
    const out = JSON.stringify(redactSecrets(line));
    expect(out).not.toContain('S3CRET');
    expect(out).toContain('[redacted]');
    expect(out).toContain('"ok":1');
    expect(JSON.stringify(line)).toBe(before);
  });

  it('keeps an error on the line while hiding a secret attached to it', () => {
    const { logger, lines } = capture();
    logger.error({ err: Object.assign(new Error('registrar down'), { apiKey: 'S3CRET' }) }, 'unexpected error');
    const line = JSON.parse(lines[0]!);
    expect(line.err).toMatchObject({ type: 'Error', message: 'registrar down', apiKey: '[redacted]' });
    expect(line.err.stack).toMatch(/registrar down/);
    expect(lines[0]).not.toContain('S3CRET');
  });

  it('redacts the bindings of a child logger too', () => {
    const { logger, lines } = capture();
    logger
      .child({ masterKey: 'S3CRET', plugin: 'sandbox' })
      .child({ nested: { apiKey: 'S3CRET' } })
      .info({ token: 'S3CRET' }, 'hello');
    expect(lines[0]).not.toContain('S3CRET');
    expect(JSON.parse(lines[0]!)).toMatchObject({ plugin: 'sandbox', token: '[redacted]', msg: 'hello' });
  });
});

describe('log context', () => {
  const tick = () => new Promise((resolve) => setImmediate(resolve));

  it('adds its bindings to every line written inside it, across awaits, and each concurrent request keeps its own', async () => {
    const { logger, lines } = capture();
    const work = (reqId: string) =>
      runWithLogContext({ reqId }, async () => {
        await tick();
        logger.info({}, `inside ${reqId}`);
        await Promise.all([tick(), tick()]);
        logger.info({}, `still ${reqId}`);
      });
    await Promise.all([work('a'), work('b'), work('c')]);
    const parsed = lines.map((line) => JSON.parse(line) as { reqId?: string; msg: string });
    expect(parsed).toHaveLength(6);
    for (const line of parsed) expect(line.msg.endsWith(line.reqId!)).toBe(true);
  });

  it("keeps each line's own fields to that line: the next line of the same request has only its own and the context's", async () => {
    const { logger, lines } = capture();
    await runWithLogContext({ reqId: 'r1' }, async () => {
      logger.info({ domain: 'first.com', attempt: 1 }, 'one');
      await tick();
      logger.info({ status: 200 }, 'two');
      expect(currentLogContext()).toEqual({ reqId: 'r1' });
    });
    logger.info({ free: true }, 'outside');
    logger.info({}, 'outside again');
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed[0]).toMatchObject({ reqId: 'r1', domain: 'first.com', attempt: 1, msg: 'one' });
    expect(parsed[1]).toMatchObject({ reqId: 'r1', status: 200, msg: 'two' });
    expect(parsed[1]).not.toHaveProperty('domain');
    expect(parsed[1]).not.toHaveProperty('attempt');
    expect(parsed[3]).not.toHaveProperty('free');
    expect(parsed[3]).not.toHaveProperty('reqId');
  });

  it('never leaks: the caller continues without it, and work started after it ends has none of its bindings', async () => {
    const { logger, lines } = capture();
    let release!: () => void;
    const long = runWithLogContext(
      { reqId: 'long' },
      () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    expect(currentLogContext()).toBeUndefined();
    await runWithLogContext({ reqId: 'short' }, async () => {
      await tick();
      expect(currentLogContext()).toEqual({ reqId: 'short' });
    });
    expect(currentLogContext()).toBeUndefined();
    logger.info({}, 'between');
    release();
    await long;
    await tick();
    expect(currentLogContext()).toBeUndefined();
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        logger.info({}, 'in a timer set outside');
        resolve();
      }, 1),
    );
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toEqual([
      expect.not.objectContaining({ reqId: expect.anything() }),
      expect.not.objectContaining({ reqId: expect.anything() }),
    ]);
  });

  it('passes a failure through and still ends the context', async () => {
    await expect(
      runWithLogContext({ reqId: 'x' }, async () => {
        await tick();
        throw new Error('failed inside');
      }),
    ).rejects.toThrow('failed inside');
    await expect(
      runWithLogContext({ reqId: 'y' }, () => {
        throw new Error('failed at once');
      }),
    ).rejects.toThrow('failed at once');
    expect(currentLogContext()).toBeUndefined();
    await runWithLogContext({ reqId: 'z' }, async () => {
      await tick();
      expect(currentLogContext()).toEqual({ reqId: 'z' });
    });
  });
});

describe('the readable log format (LOG_FORMAT=pretty)', () => {
  function capturePretty() {
    let text = '';
    const stream = new Writable({
      write(chunk, _enc, done) {
        text += String(chunk);
        done();
      },
    });
    return { logger: createLogger('info', stream as never, 'pretty'), text: () => text };
  }

  it('writes the time, the level, the message and the fields as key=value, one line each', () => {
    const { logger, text } = capturePretty();
    logger.info({ reqId: 'r1', method: 'GET', path: '/billing/credits', status: 200, note: 'two words' }, 'request');
    expect(text()).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} INFO {2}request {2}reqId=r1 method=GET path=\/billing\/credits status=200 note="two words"\n$/,
    );
    expect(text()).not.toContain('service=');
  });

  it('redacts secrets as the JSON format does', () => {
    const { logger, text } = capturePretty();
    logger.warn({ input: { apiKey: 'S3CRET' }, contacts: { email: 'a@b.co' } }, 'odd call');
    expect(text()).toContain('WARN  odd call  input={"apiKey":"[redacted]"} contacts=[redacted]');
    expect(text()).not.toMatch(/S3CRET|a@b\.co/);
  });

  it("puts an error's stack on the lines below it, indented", () => {
    const { logger, text } = capturePretty();
    logger.error({ err: new Error('registrar down'), reqId: 'r2' }, 'unexpected error');
    const [head, ...stack] = text().trimEnd().split('\n');
    expect(head).toMatch(/ERROR unexpected error {2}reqId=r2$/);
    expect(stack[0]).toBe('    Error: registrar down');
    expect(stack[1]).toMatch(/^ {4}\s*at /);
  });

  it('passes on a line that is not JSON as it is', () => {
    expect(prettyLine('not json\n')).toBe('not json\n');
  });

  it('colours the level only when asked (a terminal without NO_COLOR)', () => {
    const line = `${JSON.stringify({ level: 40, time: 0, msg: 'careful' })}\n`;
    expect(prettyLine(line, true)).toBe('00:00:00.000 \u001b[33mWARN \u001b[0m careful\n');
    expect(prettyLine(line)).toBe('00:00:00.000 WARN  careful\n');
  });
});
