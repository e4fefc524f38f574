import path from 'node:path';
import { Eta } from 'eta';

/** src/web/templates under tsx, dist/src/web/templates when compiled (scripts/build.js copies them). */
export const TEMPLATES_DIR = path.join(__dirname, 'templates');

/**
 * The Eta engine of the pages. Every `<%= %>` is HTML-escaped (autoEscape); `<%~ %>` writes raw
 * HTML and is allowed only where test/unit/web/templates.test.ts lists it (the layout's
 * `renderedPage`, partials we render ourselves).
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

/**
 * A page inside the layout: `renderedPage` is the one raw value the layout writes, so it is set
 * here, last, from the page's own rendered template. A page's values (a reseller's text, a
 * registrar's answer) cannot supply it, whatever they are named; every other value is escaped.
 */
export function renderInLayout(
  templates: Eta,
  values: Readonly<Record<string, unknown>>,
  renderedPage: string,
): string {
  return templates.render('layout', { ...values, renderedPage });
}
