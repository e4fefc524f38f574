import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  /** Path without the query string. */
  readonly path: string;
  readonly query: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** What the stub answers: a status and JSON body, raw text, a hang, or a dropped connection. */
export type StubAnswer =
  | { readonly status?: number; readonly json: unknown; readonly headers?: Record<string, string> }
  | { readonly status?: number; readonly text: string; readonly headers?: Record<string, string> }
  | { readonly hang: true }
  | { readonly drop: true };

export interface StubHttpServer {
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Answers for `METHOD /path`, used in order; the last one repeats. */
  on(route: string, ...answers: StubAnswer[]): void;
  close(): Promise<void>;
}

/** A tiny HTTP server on loopback that records every request and answers from a script; routes are matched after `basePath`. */
export async function startStubHttpServer(options: { basePath?: string } = {}): Promise<StubHttpServer> {
  const basePath = options.basePath ?? '';
  const requests: RecordedRequest[] = [];
  const scripts = new Map<string, StubAnswer[]>();
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const [path, query = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
      requests.push({
        method: req.method ?? 'GET',
        path,
        query,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      const routed = basePath && path.startsWith(basePath) ? path.slice(basePath.length) : path;
      const key = `${req.method} ${decodeURIComponent(routed)}`;
      const script = scripts.get(key);
      const answer: StubAnswer = script
        ? script.length > 1
          ? script.shift()!
          : script[0]!
        : { status: 404, json: { error: `stub has no answer for ${key}` } };
      if ('hang' in answer) {
        hanging.add(res);
        return;
      }
      if ('drop' in answer) {
        req.socket.destroy();
        return;
      }
      const body = 'json' in answer ? JSON.stringify(answer.json) : answer.text;
      res.writeHead(answer.status ?? 200, {
        'content-type': 'json' in answer ? 'application/json' : 'text/plain',
        'x-request-id': 'req-1',
        ...answer.headers,
      });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on: (route, ...answers) => {
      scripts.set(route, answers);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
