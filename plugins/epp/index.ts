import { defineRegistrarPlugin, type PluginHost, type RegistrarPlugin } from '../../src/core/registrar/plugin';
import { EppRegistrar } from './src/epp-registrar';
import { parseOptions, type ParsedOptions } from './src/options';
import { SessionPool } from './src/session-pool';

export { EppRegistrar } from './src/epp-registrar';
export type { EppOptions } from './src/options';

/**
 * The EPP registrar plugin: one registry, reached over TLS with the operator's client certificate.
 * Installed but not configured (no `plugins.epp` options), it loads and answers every call with a
 * fault saying so, so that the platform still starts.
 */
export default defineRegistrarPlugin<ParsedOptions>({
  id: 'epp',
  apiVersion: 1,
  parseOptions: (raw) => parseOptions(raw),
  create(parsed, host): RegistrarPlugin {
    if (!parsed.isConfigured) return unconfigured();
    return createEppRegistrar(parsed.options, host);
  },
});

/** Builds the registrar with its session pool; no connection is made until the first call. */
export function createEppRegistrar(options: Extract<ParsedOptions, { isConfigured: true }>['options'], host: PluginHost): EppRegistrar {
  const pool = new SessionPool({
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
  }, host.logger.child({ plugin: 'epp' }));
  return new EppRegistrar(pool, options, host);
}

function unconfigured(): RegistrarPlugin {
  const fail = async (): Promise<never> => {
    throw new Error('the epp registrar plugin is not configured: set plugins.epp (host, clientId, password, cert, key) in the configuration file');
  };
  return { id: 'epp', checkAvailability: fail, register: fail, renew: fail };
}
