import { timingSafeEqual } from 'node:crypto';
import type { Server } from 'node:http';
import Koa from 'koa';
import type { Settings } from './config/settings';
import type { ResellerModule } from './module';

/**
 * The stand-alone server's Koa app. Behind a load balancer (TRUST_PROXY) the client address is
 * read from X-Forwarded-For, TRUST_PROXY_HOPS entries from the right: the entries the client
 * wrote itself are never believed, so an IP allow-list cannot be talked round.
 */
export function createServerApp(module: ResellerModule, settings: Settings, isDraining = () => false): Koa {
  const app = new Koa({ proxy: settings.trustProxy, maxIpsCount: settings.trustProxy ? settings.trustProxyHops : 0 });
  // While draining, each reply ends its connection: a keep-alive client that sends its next request
  // the moment an answer arrives is never idle when the server looks, and would keep it open to the deadline.
  app.use((ctx, next) => {
    if (isDraining()) ctx.set('Connection', 'close');
    return next();
  });
  // The console first: the API answers every path it does not own with a 404 JSON.
  if (settings.console) {
    const mountPath = settings.consolePath === '/' ? '' : settings.consolePath;
    app.use(onlyUnder(mountPath, module.console({ mountPath })));
  }
  if (settings.portal) {
    const mountPath = settings.portalPath === '/' ? '' : settings.portalPath;
    app.use(onlyUnder(mountPath, module.portal({ mountPath })));
  }
  app.use(module.middleware({ ownAllPaths: true }));
  return app;
}

/**
 * A web area's middleware, reached only by the paths under its mount (it owns nothing else, and
 * would pass them on itself): every other request, an API call, goes on to the next without
 * entering it (no promise of its own on the way, for each area, on every API call). An area at
 * the root decides for itself which paths are its own.
 */
function onlyUnder(mountPath: string, area: Koa.Middleware): Koa.Middleware {
  if (mountPath === '') return area;
  const below = `${mountPath}/`;
  return (ctx, next) => (ctx.path === mountPath || ctx.path.startsWith(below) ? area(ctx, next) : next());
}

export interface RunningServer {
  readonly server: Server;
  /** The port it listens on (PORT=0 picks a free one). */
  readonly port: number;
  /** The metrics listener's port; undefined when METRICS is off or its port could not be taken. */
  readonly metricsPort: number | undefined;
  /**
   * Graceful shutdown: /readyz answers 503 at once, and every reply from then on says
   * `Connection: close` and ends its keep-alive connection; after SHUTDOWN_DELAY_MS no new connection is
   * accepted; the background jobs stop (claimed work is given back); requests in flight finish
   * (up to SHUTDOWN_TIMEOUT_MS); the API log is written; the database pool closes. Pending orders
   * are left to reconciliation on whichever process runs it next. True when everything finished in time.
   */
  shutdown(signal: string): Promise<boolean>;
}

/**
 * Issue 31: /metrics is never on the API port. Its own app answers GET /metrics alone, asking for
 * METRICS_TOKEN as a bearer token when one is set.
 */
export function createMetricsApp(module: ResellerModule, settings: Settings): Koa {
  const app = new Koa();
  const expected = settings.metricsToken ? Buffer.from(`Bearer ${settings.metricsToken}`) : undefined;
  app.use(async (ctx) => {
    if (ctx.path !== '/metrics' || ctx.method !== 'GET') {
      ctx.status = 404;
      ctx.body = { error: 'only GET /metrics is served here' };
      return;
    }
    if (expected) {
      const given = Buffer.from(ctx.get('authorization'));
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        ctx.status = 401;
        ctx.set('WWW-Authenticate', 'Bearer');
        ctx.body = { error: 'METRICS_TOKEN is set: send Authorization: Bearer <token>' };
        return;
      }
    }
    ctx.type = module.metrics.contentType;
    ctx.body = await module.metrics.text();
  });
  return app;
}

/** The metrics listener, when METRICS is on; a port that cannot be taken is logged, not fatal. */
async function startMetrics(module: ResellerModule, settings: Settings): Promise<Server | undefined> {
  if (!settings.metrics) return undefined;
  const server = createMetricsApp(module, settings).listen(settings.metricsPort, settings.metricsHost);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
  } catch (error) {
    // Metrics are not the business: the API keeps serving, and the operator is told what to change.
    module.logger.error(
      { metricsHost: settings.metricsHost, metricsPort: settings.metricsPort },
      `metrics are not served: ${settings.metricsHost}:${settings.metricsPort} cannot be listened on (${(error as Error).message}); give each process on a host its own METRICS_PORT, or set METRICS=false`,
    );
    return undefined;
  }
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.metricsPort;
  module.logger.info(
    { url: `http://${settings.metricsHost}:${port}/metrics`, port, token: settings.metricsToken !== undefined },
    'metrics listening',
  );
  return server;
}

export async function startServer(module: ResellerModule, settings: Settings): Promise<RunningServer> {
  const { logger } = module;
  let shuttingDown: Promise<boolean> | undefined;
  const server = createServerApp(module, settings, () => shuttingDown !== undefined).listen(
    settings.port,
    settings.host,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const metricsServer = await startMetrics(module, settings);
  const metricsAddress = metricsServer?.address();
  const metricsPort = typeof metricsAddress === 'object' && metricsAddress ? metricsAddress.port : undefined;

  const shutdown = async (signal: string): Promise<boolean> => {
    const started = Date.now();
    logger.info(
      { signal, delayMs: settings.shutdownDelayMs, timeoutMs: settings.shutdownTimeoutMs },
      'shutting down: /readyz now answers 503',
    );
    module.drain();
    if (settings.shutdownDelayMs > 0) await sleep(settings.shutdownDelayMs);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Keep-alive connections with nothing in flight would otherwise hold the close up; busy ones
    // end after their current reply (Connection: close above).
    server.closeIdleConnections();
    const left = Math.max(0, settings.shutdownTimeoutMs - (Date.now() - started));
    const [finished, jobsStopped] = await Promise.all([within(closed, left), module.jobs.stop(left)]);
    if (!finished) {
      logger.warn(
        { timeoutMs: settings.shutdownTimeoutMs },
        'requests still in flight at the shutdown deadline were cut off; pending orders are settled by reconciliation',
      );
      server.closeAllConnections();
    }
    if (!jobsStopped)
      logger.warn(
        {},
        'a background pass was still running at the shutdown deadline; its claims run out and another process takes them',
      );
    if (metricsServer) {
      const metricsClosed = new Promise<void>((resolve) => metricsServer.close(() => resolve()));
      metricsServer.closeAllConnections();
      await metricsClosed;
    }
    // The jobs had their share of the deadline above.
    await module.close({ jobsWaitMs: 0 });
    logger.info({ ms: Date.now() - started }, 'stopped');
    return finished && jobsStopped;
  };

  return {
    server,
    port,
    metricsPort,
    shutdown: (signal) => (shuttingDown ??= shutdown(signal)),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function within(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
