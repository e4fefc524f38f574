import { defineRegistrarPlugin, type RegistrarPlugin } from '../../src/core/registrar/plugin';
import { createEppRegistrar } from './src/create-epp-registrar';
import { parseOptions, type ParsedOptions } from './src/options';

/**
 * The EPP registrar plugin (RFC 5730–5734, 5910, 3915): one registry, reached over TLS with the
 * operator's client certificate. Installed but not configured (no `plugins.epp` options), it loads
 * and fails every call with a message saying so, so that the platform still starts.
 */
export default defineRegistrarPlugin<ParsedOptions>({
  id: 'epp',
  apiVersion: 1,
  parseOptions: (raw) => parseOptions(raw),
  create(parsed, host): RegistrarPlugin {
    return parsed.isConfigured ? createEppRegistrar(parsed.options, host) : unconfigured();
  },
});

function unconfigured(): RegistrarPlugin {
  const fail = async (): Promise<never> => {
    throw new Error('the epp registrar plugin is not configured: set plugins.epp (host, clientId, password, cert, key) in the configuration file');
  };
  return { id: 'epp', checkAvailability: fail, register: fail, renew: fail };
}
