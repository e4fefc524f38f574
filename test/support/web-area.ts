import { Container } from 'inversify';
import Koa from 'koa';
import type { Logger } from '../../src/core/common/logger';
import type { AreaRules, Page } from '../../src/web/page-table';
import type { WebSessions } from '../../src/web/sessions';
import { createTemplates } from '../../src/web/templates';
import { createWebArea } from '../../src/web/web-app';

export const SILENT_LOGGER: Logger = { info() {}, warn() {}, error() {}, debug() {}, child: () => SILENT_LOGGER };

/**
 * A console area under /admin with the given pages, access rules and sessions, on nothing else (no
 * module, no database): for unit tests of the web layer. Returns the request handler for supertest.
 */
export function consoleAreaOf<Principal, Access extends string>(parts: {
  readonly pages: ReadonlyArray<Page<Principal, Access>>;
  readonly rules: AreaRules<Principal, Access>;
  readonly sessions: WebSessions;
  readonly logger?: Logger;
}): ReturnType<Koa['callback']> {
  const app = new Koa();
  app.use(
    createWebArea({
      area: 'console',
      mountPath: '/admin',
      title: 'Test',
      pages: parts.pages,
      rules: parts.rules,
      sessions: parts.sessions,
      container: new Container(),
      templates: createTemplates({ cache: true }),
      logger: parts.logger ?? SILENT_LOGGER,
    }),
  );
  return app.callback();
}
