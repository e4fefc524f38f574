import { defineRegistrarPlugin, notConfigured } from 'domain-reseller';
import { parseOptions, type ParsedOptions } from './src/options';
import { createUpstreamRegistrar } from './src/upstream-registrar';

/**
 * The upstream-reseller plugin: serves TLDs by forwarding to a provider that runs this same
 * reseller API (our platform, or the deployed product it describes), through the client SDK.
 * Installed but not configured (no `plugins.upstream` options), it is loaded as not configured:
 * every call fails with a message saying so, and the platform still starts.
 */
export default defineRegistrarPlugin<ParsedOptions>({
  id: 'upstream',
  apiVersion: 1,
  parseOptions: (raw) => parseOptions(raw),
  create(parsed, host) {
    return parsed.isConfigured
      ? createUpstreamRegistrar(parsed.options, host)
      : notConfigured('set plugins.upstream (baseUrl, email, apiKeyEnv or apiKey) in the configuration file');
  },
});
