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
  return new Eta({
    views: TEMPLATES_DIR,
    cache: options.cache,
    autoEscape: true,
    autoTrim: [false, 'nl'],
    defaultExtension: '.eta',
  });
}
