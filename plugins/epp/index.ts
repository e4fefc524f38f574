import {
  CAPABILITY_METHODS,
  defineRegistrarPlugin,
  type CapabilityName,
  type RegistrarPlugin,
} from '../../src/core/registrar/plugin';
import manifest from './package.json';
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
    throw new Error(
      'the epp registrar plugin is not configured: set plugins.epp (host, clientId, password, cert, key) in the configuration file',
    );
  };
  // Every capability the manifest declares is present (the loader checks), each failing the same way.
  const capabilities = Object.fromEntries(
    (manifest.resellerPlugin.capabilities as CapabilityName[]).map((name) => [
      name,
      Object.fromEntries(CAPABILITY_METHODS[name].map((method) => [method, fail])),
    ]),
  );
  return { id: 'epp', checkAvailability: fail, register: fail, renew: fail, ...capabilities } as RegistrarPlugin;
}
