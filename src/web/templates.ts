import path from 'node:path';
import { Eta } from 'eta';

/** src/web/templates under tsx, dist/src/web/templates when compiled (scripts/build.js copies them). */
export const TEMPLATES_DIR = path.join(__dirname, 'templates');

/**
 * The Eta engine of the pages. Every `<%= %>` is HTML-escaped (autoEscape); `<%~ %>` writes raw
 * HTML and is allowed only where test/unit/web/templates.test.ts lists it (the layout's body,
 * partials we render ourselves).
 */
export function createTemplates(options: { cache: boolean }): Eta {
  const eta = new Eta({
    views: TEMPLATES_DIR,
    cache: options.cache,
    autoEscape: true,
    autoTrim: [false, 'nl'],
    defaultExtension: '.eta',
  });
  const resolvePath = eta.resolvePath;
  if (options.cache && resolvePath) {
    // With templates compiled once, a name (from the file that includes it) names the same file
    // for the process's life: resolved once, where Eta resolves it (a JSON key, path joins and
    // the check that it stays inside the views folder) at every render and include.
    const resolved = new Map<string, string>();
    eta.resolvePath = function (template, resolveOptions) {
      const key = `${resolveOptions?.filepath ?? ''}\n${template}`;
      let file = resolved.get(key);
      if (file === undefined) {
        file = resolvePath.call(this, template, resolveOptions);
        resolved.set(key, file);
      }
      return file;
    };
  }
  return eta;
}
