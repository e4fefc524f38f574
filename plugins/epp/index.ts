import { defineRegistrarPlugin, notConfigured } from 'domain-reseller';
import { changePasswordCommand } from './src/commands';
import { createEppRegistrar } from './src/create-epp-registrar';
import { parseOptions, type ParsedOptions } from './src/options';

/**
 * The EPP registrar plugin (RFC 5730–5734, 5910, 3915): one registry, reached over TLS with the
 * operator's client certificate. Installed but not configured (no `plugins.epp` options), it is
 * loaded as not configured: every call fails with a message saying so, and the platform still starts.
 */
export default defineRegistrarPlugin<ParsedOptions>({
  id: 'epp',
  apiVersion: 1,
  parseOptions: (raw) => parseOptions(raw),
  create(parsed, host) {
    return parsed.isConfigured
      ? createEppRegistrar(parsed.options, host)
      : notConfigured('set plugins.epp (host, clientId, password, cert, key) in the configuration file');
  },
  commands: [changePasswordCommand],
});
