import {
  CAPABILITY_METHODS,
  defineRegistrarPlugin,
  type CapabilityName,
  type RegistrarPlugin,
} from '../../src/core/registrar/plugin';
import manifest from './package.json';
import { parseOptions, type ParsedOptions } from './src/options';
import { createUpstreamRegistrar } from './src/upstream-registrar';

/**
 * The upstream-reseller plugin: serves TLDs by forwarding to a provider that runs this same
 * reseller API (our platform, or the deployed product it describes), through the client SDK.
 * Installed but not configured (no `plugins.upstream` options), it loads and fails every call
 * with a message saying so, so that the platform still starts.
 */
export default defineRegistrarPlugin<ParsedOptions>({
  id: 'upstream',
  apiVersion: 1,
  parseOptions: (raw) => parseOptions(raw),
  create(parsed, host): RegistrarPlugin {
    return parsed.isConfigured ? createUpstreamRegistrar(parsed.options, host) : unconfigured();
  },
});

function unconfigured(): RegistrarPlugin {
  const fail = async (): Promise<never> => {
    throw new Error(
      'the upstream registrar plugin is not configured: set plugins.upstream (baseUrl, email, apiKeyEnv or apiKey) in the configuration file',
    );
  };
  // Every capability the manifest declares is present (the loader checks), each failing the same way.
  const capabilities = Object.fromEntries(
    (manifest.resellerPlugin.capabilities as CapabilityName[]).map((name) => [
      name,
      Object.fromEntries(CAPABILITY_METHODS[name].map((method) => [method, fail])),
    ]),
  );
  return { id: 'upstream', checkAvailability: fail, register: fail, renew: fail, ...capabilities } as RegistrarPlugin;
}
