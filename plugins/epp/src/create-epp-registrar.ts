import type { PluginHost } from 'domain-reseller';
import { EppRegistrar } from './epp-registrar';
import type { EppOptions } from './options';
import type { TlsSettings } from './connection';
import { type LoginSettings, SessionPool } from './session-pool';
import { TransactionIds } from './transaction-ids';

/** Builds the registrar with its session pool; no connection is made until the first call. */
export function createEppRegistrar(options: EppOptions, host: PluginHost): EppRegistrar {
  const pool = new SessionPool(
    {
      tls: tlsSettings(options),
      login: loginSettings(options),
      maxSessions: options.sessions,
      commandTimeoutMs: options.commandTimeoutMs,
      keepAliveMs: options.keepAliveMs,
      reconnectInitialMs: options.reconnectInitialMs,
      reconnectMaxMs: options.reconnectMaxMs,
      logoutTimeoutMs: options.logoutTimeoutMs,
    },
    host.logger.child({ plugin: 'epp' }),
    new TransactionIds(),
  );
  return new EppRegistrar(pool, options, host);
}

export function tlsSettings(options: EppOptions): TlsSettings {
  return {
    host: options.host,
    port: options.port,
    cert: options.cert,
    key: options.key,
    passphrase: options.passphrase,
    ca: options.ca,
    serverName: options.serverName,
    verifyServerCertificate: options.verifyServerCertificate,
    connectTimeoutMs: options.connectTimeoutMs,
  };
}

export function loginSettings(options: EppOptions): LoginSettings {
  return {
    clientId: options.clientId,
    password: options.password,
    language: options.language,
    useHostObjects: options.hostMode !== 'attributes',
    useContacts: options.contactMode !== 'none',
    extensions: options.extensions,
  };
}
