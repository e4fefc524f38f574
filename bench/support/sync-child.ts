/**
 * Runs `reseller-admin sync --concurrency N` (the CLI's own `runCli`) in a process of its own,
 * sampling its memory every 50 ms (and the live heap after a full collection every second), and reports to the parent over IPC: wall time, peak RSS and
 * peak heap, and the report's counts. stdout (the JSON report) is counted, not kept.
 * Environment: the CLI's (DATABASE_URL, MASTER_KEY, SANDBOX_LATENCY_MS), SYNC_CONCURRENCY.
 */
import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/commands';

async function main(): Promise<void> {
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const sampler = setInterval(sample, 50);
  // Heap used right after a full collection: what the sync keeps alive, without the garbage that
  // a lazier collector leaves around in a longer run. Once a second, so it costs little.
  let peakLive = 0;
  const collect = (globalThis as { gc?: () => void }).gc;
  const live = setInterval(() => {
    collect?.();
    peakLive = Math.max(peakLive, process.memoryUsage().heapUsed);
  }, 1000);
  let stdoutBytes = 0;
  let tail = '';
  const stdout = new Writable({
    write(chunk, _enc, done) {
      stdoutBytes += chunk.length;
      tail = (tail + String(chunk)).slice(-2000);
      done();
    },
  });
  let stderr = '';
  const errStream = new Writable({
    write(chunk, _enc, done) {
      stderr = (stderr + String(chunk)).slice(-2000);
      done();
    },
  });
  const started = performance.now();
  const code = await runCli(['sync', '--concurrency', process.env.SYNC_CONCURRENCY ?? '50'], {
    stdout,
    stderr: errStream,
    env: process.env,
  });
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage();
  clearInterval(sampler);
  clearInterval(live);
  sample();
  process.send!({
    code,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRss,
    peakHeap,
    peakLive,
    maxRss: process.resourceUsage().maxRSS * 1024,
    stdoutBytes,
    stderr,
    tail,
  });
}

main().catch((error) => {
  process.send!({ code: 1, stderr: String(error?.stack ?? error) });
});
