/** `tsx webhook-receivers.ts N`: N loopback HTTP servers answering 204 to anything; prints their URLs as a JSON line. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

async function main(): Promise<void> {
  const count = Number(process.argv[2] ?? 10);
  const urls: string[] = [];
  for (let i = 0; i < count; i++) {
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(204).end());
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  }
  process.stdout.write(`${JSON.stringify(urls)}\n`);
}

void main();
