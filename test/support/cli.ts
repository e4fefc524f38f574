import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/commands';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (every command prints JSON). */
  json<T = any>(): T;
}

const sink = () => {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
};

/** Runs `reseller-admin …` in-process with the given environment. */
export async function cli(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<CliResult> {
  const out = sink();
  const err = sink();
  const code = await runCli(argv, { stdout: out.stream, stderr: err.stream, env });
  return { code, stdout: out.text(), stderr: err.text(), json: () => JSON.parse(out.text()) };
}
