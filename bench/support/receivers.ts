import { spawn } from 'node:child_process';
import path from 'node:path';

export interface Receivers {
  readonly urls: string[];
  stop(): void;
}

/** `count` loopback webhook receivers answering 204, in a child process so that their CPU is not the sender's. */
export async function startReceivers(count: number): Promise<Receivers> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, '..', 'servers', 'webhook-receivers.ts'), String(count)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const urls = await new Promise<string[]>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk) => {
      out += String(chunk);
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as string[]);
    });
    child.on('exit', (code) => reject(new Error(`the receivers exited with ${code}`)));
  });
  return { urls, stop: () => child.kill('SIGTERM') };
}
