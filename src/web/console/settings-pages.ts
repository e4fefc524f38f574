import { version } from '../../../package.json';
import { TOKENS } from '../../core/tokens';
import { missingRegistrars } from '../../startup/readiness';
import { WEB_TOKENS } from '../web-tokens';
import type { ConsolePage } from './console-access';

/** Settings whose values are secrets (shown as set or not set, never their value). */
const SECRET_SETTINGS = new Set(['masterKey']);

/** A database URL with its password masked. */
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
          value: SECRET_SETTINGS.has(key)
            ? value
              ? '(set)'
              : '(not set)'
            : key === 'databaseUrl'
              ? maskedUrl(String(value))
              : value === undefined
                ? '(not set)'
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
