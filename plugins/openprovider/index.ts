import { defineRegistrarPlugin, notConfigured } from 'domain-reseller';
import { createOpenproviderRegistrar } from './src/openprovider-registrar';
import { parseOptions, type ParsedOptions } from './src/options';

/**
 * Openprovider's REST API (v1beta): for operators who buy names from Openprovider as a reseller.
 * Installed but not configured (no `plugins.openprovider` options), it is loaded as not
 * configured: every call fails with a message saying so, and the platform still starts.
 */
export default defineRegistrarPlugin<ParsedOptions>({
  id: 'openprovider',
  apiVersion: 1,
  parseOptions: (raw) => parseOptions(raw),
  create(parsed, host) {
    return parsed.isConfigured
      ? createOpenproviderRegistrar(parsed.options, host)
      : notConfigured('set plugins.openprovider (username, and passwordEnv or password) in the configuration file');
  },
});
