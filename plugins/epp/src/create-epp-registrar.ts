import type { PluginHost } from '../../../src/core/registrar/plugin';
import { EppRegistrar } from './epp-registrar';
import type { EppOptions } from './options';
import { SessionPool } from './session-pool';

/** Builds the registrar with its session pool; no connection is made until the first call. */
export function createEppRegistrar(options: EppOptions, host: PluginHost): EppRegistrar {
  const pool = new SessionPool(
    {
      tls: {
        host: options.host,
        port: options.port,
        cert: options.cert,
        key: options.key,
        passphrase: options.passphrase,
        ca: options.ca,
        serverName: options.serverName,
        verifyServerCertificate: options.verifyServerCertificate,
        connectTimeoutMs: options.connectTimeoutMs,
      },
      login: {
        clientId: options.clientId,
        password: options.password,
        newPassword: options.newPassword,
        language: options.language,
        useHostObjects: options.hostMode !== 'attributes',
        useContacts: options.contactMode !== 'none',
        extensions: options.extensions,
      },
      maxSessions: options.sessions,
      commandTimeoutMs: options.commandTimeoutMs,
      keepAliveMs: options.keepAliveMs,
      reconnectInitialMs: options.reconnectInitialMs,
      reconnectMaxMs: options.reconnectMaxMs,
      logoutTimeoutMs: options.logoutTimeoutMs,
    },
    host.logger.child({ plugin: 'epp' }),
  );
  return new EppRegistrar(pool, options, host);
}
