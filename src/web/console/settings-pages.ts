import { version } from '../../../package.json';
import { isSecretField } from '../../core/common/secret-fields';
import { TOKENS } from '../../core/tokens';
import { missingRegistrars } from '../../startup/readiness';
import { WEB_TOKENS } from '../web-tokens';
import type { ConsolePage } from './console-access';

/** A URL (the database's, the mail server's) with its password masked. */
function maskedUrl(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:•••@');
}

export const SETTINGS_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/settings',
    access: 'viewer',
    handler: async (ctx) => {
      const settings = ctx.resolve(WEB_TOKENS.settings);
      const rows = Object.entries(settings)
        .filter(([key]) => key !== 'plugins')
        .map(([key, value]) => ({
          key,
          // Secrets by the one rule (the master key, the metrics token, …): shown as set or not set, never their value.
          value: isSecretField(key)
            ? value
              ? '(set)'
              : '(not set)'
            : value === undefined
              ? '(not set)'
              : /url$/i.test(key)
                ? maskedUrl(String(value))
                : String(value),
        }));
      const registrars = ctx.resolve(TOKENS.registrars);
      const plugins = registrars.ids().map((id) => ({
        id,
        capabilities: registrars.get(id).capabilities,
        // Plugin options may hold credentials: only their names are shown.
        options: Object.keys(settings.plugins[id] ?? {}),
      }));
      const problem = missingRegistrars(await ctx.resolve(TOKENS.catalogueService).listTlds(), registrars);
      return ctx.render('settings', { pageTitle: 'Settings', rows, plugins, problem, version });
    },
  },
];
