import http from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');

/** A free TCP port on 127.0.0.1 (asked of the OS, then released for the child to take). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface ServerProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** CPU seconds (user + system) the process has used so far, from /proc; NaN where there is no /proc. */
  cpuSeconds(): number;
  /** Sends SIGTERM and waits for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

/**
 * Runs a TypeScript entry (through tsx) as a server in its own process, so that it has an event
 * loop to itself and the load generator in this process does not steal it. Resolves once the
 * port accepts connections. The child's stdout (the JSON request log) goes to /dev/null: the
 * server pays for writing its log, as in production, and nobody pays for reading it.
 */
export async function startServer(entry: string, env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  let stderr = '';
  const pin = process.env.BENCH_SERVER_CPU;
  const command = pin ? 'taskset' : process.execPath;
  // BENCH_PROFILE_DIR: every server writes a V8 CPU profile there when it stops (for finding hot paths).
  const profile = process.env.BENCH_PROFILE_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
    : [];
  const args = [
    ...(pin ? ['-c', pin, process.execPath] : []),
    ...profile,
    '--import',
    'tsx',
    path.resolve(ROOT, entry),
  ];
  const child = spawn(command, args, {
    cwd: ROOT,
    // Servers run side by side (test files, a benchmark's variants): each takes a free metrics port unless told.
    env: { ...process.env, METRICS_PORT: '0', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr!.on('data', (chunk) => {
    stderr = (stderr + String(chunk)).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode} before listening:\n${stderr}`);
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${entry} did not listen within 60 s:\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

const TICKS_PER_SECOND = 100;

/** utime + stime of a process from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux). */
export function cpuSecondsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

/** Whether something accepts connections on the port on loopback now. */
export function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A plain reply: the status and the body as text. */
export interface Reply {
  readonly status: number;
  readonly body: string;
}

/** One request on a fresh connection (no keep-alive), so a refused connection shows as an error. */
export function send(
  port: number,
  method: string,
  urlPath: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: urlPath, headers, agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += String(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Polls until the probe answers; generous, since a full parallel MariaDB run makes start-up (migrations) slow. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 2400; i++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** The stand-alone server (src/main.ts) in a child process, with its JSON log lines read as it writes them. */
export interface LoggingServer {
  /** The log lines written so far, parsed. */
  lines(): Array<Record<string, unknown>>;
  /** Resolves once the server says it listens; rejects if it exits first. */
  readonly listening: Promise<void>;
  /** SIGKILL, and waits for the exit (nothing is left behind: the child is node itself, no tsx wrapper). */
  kill(): Promise<void>;
}

export function startLoggingServer(env: Record<string, string>): LoggingServer {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', CONFIG_FILE: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const lines = () =>
    stdout
      .split('\n')
      .slice(0, -1) // the last piece may be a line still being written
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const listening = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += String(chunk);
      if (lines().some((l) => l.msg === 'domain reseller API listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${stdout}${stderr}`)));
  });
  return {
    lines,
    listening,
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
