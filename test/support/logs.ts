import { Writable } from 'node:stream';
import { createLogger } from '../../src/infra/logging';

/** Everything a module logs (give it `logger`), as parsed JSON lines and as raw text. */
export function captureLogs(level = 'debug') {
  let text = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      text += String(chunk);
      done();
    },
  });
  return {
    logger: createLogger(level, stream as never),
    text: () => text,
    lines: () =>
      text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    clear: () => {
      text = '';
    },
  };
}
