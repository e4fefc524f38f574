import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from '../support/harness';

/** One server on one Galera node. */
export interface NodeServer {
  readonly module: ResellerModule;
  readonly server: Server;
  readonly url: string;
}

/**
 * A server per node (`nodes`: the nodes' URLs), all on `database`, which must exist: the first
 * migrates it and sells .com to the `default` group (register 10.00, renew 12.00, transfer 9.00).
 */
export async function serversOnNodes(nodes: readonly string[], database: string): Promise<NodeServer[]> {
  const servers: NodeServer[] = [];
  try {
    for (const [i, node] of nodes.entries()) servers.push(await serverOnNode(node, database, i === 0));
  } catch (error) {
    await stopServers(servers);
    throw error;
  }
  return servers;
}

/** One server on `node`; the first also migrates the database and sets up the catalogue. */
async function serverOnNode(node: string, database: string, first: boolean): Promise<NodeServer> {
  const module = await createResellerModule({
    database: `${node}/${database}`,
    settings: {
      masterKey: TEST_MASTER_KEY,
      logLevel: process.env.GALERA_LOG_LEVEL ?? 'silent',
      backgroundJobs: false,
    },
  });
  try {
    if (first) {
      await module.migrate();
      await module.services.resellers.createGroup('default');
      await module.services.catalogue.setTld({
        tld: '.com',
        group: 'default',
        registrar: 'sandbox',
        prices: { register: { 1: 1000 }, renew: { 1: 1200 }, transfer: { 1: 900 } },
      });
    }
    const app = new Koa();
    app.use(module.middleware({ ownAllPaths: true }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    return { module, server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  } catch (error) {
    await module.close();
    throw error;
  }
}

/** Stops what `serversOnNodes` started. */
export async function stopServers(servers: readonly NodeServer[]): Promise<void> {
  for (const { server, module } of servers) {
    await new Promise((resolve) => server.close(resolve));
    await module.close();
  }
}
