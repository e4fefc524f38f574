import { z } from 'zod';
import { HttpReply, route, type Route } from '../route-table';
import { noInput } from '../wire/schemas';

export interface Readiness {
  readonly ready: boolean;
  /** Each dependency: "ok", or what is wrong with it. */
  readonly checks: Readonly<Record<string, string>>;
}

export interface OperationalDependencies {
  /** The OpenAPI document (built once, on first use). */
  readonly document: () => unknown;
  readonly readiness: () => Promise<Readiness>;
  /** Prometheus text exposition; without it there is no /metrics. */
  readonly metrics?: { readonly contentType: string; text(): Promise<string> };
}

const Checks = z.record(z.string(), z.string());

/**
 * What operators and load balancers call, without authentication: liveness, readiness, the API
 * document and the metrics. Served wherever the API is (the root, the host's prefix, BASE_PATH).
 */
export function operationalRoutes(deps: OperationalDependencies): Route[] {
  const routes: Route[] = [
    route({
      method: 'get',
      path: '/healthz',
      access: 'public',
      summary: 'Liveness: the process is up and serving (it checks nothing else)',
      input: noInput,
      output: z.strictObject({ status: z.literal('ok') }),
      handler: async () => ({ status: 'ok' }),
    }),
    route({
      method: 'get',
      path: '/readyz',
      access: 'public',
      summary:
        'Readiness: the database answers and the registrar plugins are loaded; 503 while not, and from the moment the process starts shutting down',
      input: noInput,
      output: z.strictObject({ status: z.literal('ready'), checks: Checks }),
      handler: async () => {
        const { ready, checks } = await deps.readiness();
        if (ready) return { status: 'ready', checks };
        const problems = Object.entries(checks)
          .filter(([, v]) => v !== 'ok')
          .map(([k, v]) => `${k}: ${v}`);
        return new HttpReply(503, { error: `not ready: ${problems.join('; ')}`, checks });
      },
    }),
    route({
      method: 'get',
      path: '/openapi.json',
      access: 'public',
      summary: 'This API as an OpenAPI 3.1 document, generated from the route table',
      input: noInput,
      output: z.looseObject({
        openapi: z.literal('3.1.0'),
        info: z.looseObject({ title: z.string(), version: z.string() }),
        paths: z.record(z.string(), z.unknown()),
      }),
      handler: async () => deps.document(),
    }),
  ];
  const { metrics } = deps;
  if (metrics) {
    routes.push(
      route({
        method: 'get',
        path: '/metrics',
        access: 'public',
        summary: 'Prometheus metrics of this process (text exposition format)',
        input: noInput,
        output: z.string(),
        handler: async () => new HttpReply(200, await metrics.text(), metrics.contentType),
      }),
    );
  }
  return routes;
}
