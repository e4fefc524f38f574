import { DomainError } from '../../core/common/errors';
import { TOKENS } from '../../core/tokens';
import type { ConsolePage } from './console-access';
import type { ApiLogView } from '../../core/console/console-lists';
import { type CsvExport, filtersOf, isCsv, listOrCsv, wholeNumberOf } from './list-support';
import { resellerIdOf } from './order-pages';

const API_LOG_CSV: CsvExport<ApiLogView> = {
  filename: 'api-log.csv',
  header: ['at', 'reseller', 'method', 'route', 'domain', 'status', 'duration_ms', 'error', 'request_id', 'client_ip'],
  row: (l) => [
    l.at,
    l.resellerEmail,
    l.method,
    l.route,
    l.domain,
    l.status,
    l.durationMs,
    l.error,
    l.requestId,
    l.clientIp,
  ],
};

/** The API log across resellers, and the audit log of every change. */
export const LOG_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/api-log',
    access: 'viewer',
    handler: async (ctx) => {
      const filters = filtersOf(ctx.query, ['reseller', 'route', 'status', 'from', 'to']);
      const lists = ctx.resolve(TOKENS.consoleLists);
      const resellerId = await resellerIdOf(ctx, filters.reseller);
      const read = (cursor?: string, limit?: number) =>
        lists.apiLog({
          resellerId,
          route: filters.route,
          status: wholeNumberOf(filters.status, 'status'),
          from: filters.from,
          to: filters.to,
          cursor,
          limit,
        });
      return listOrCsv(ctx, read, API_LOG_CSV, (page) =>
        ctx.render('api-log', { pageTitle: 'API log', page, filters }, { fragment: 'api-log-results' }),
      );
    },
  },
  {
    method: 'get',
    path: '/audit',
    access: 'viewer',
    handler: async (ctx) => {
      const filters = filtersOf(ctx.query, ['action', 'actor', 'subject', 'cursor']);
      const subject = /^([a-z_]+):(.+)$/.exec(filters.subject ?? '');
      let before: { at: Date; id: string } | undefined;
      if (filters.cursor) {
        const match = /^(\d{1,15})\.([0-9A-Z]{26})$/.exec(filters.cursor);
        if (!match)
          throw new DomainError('validation_failed', 'cursor is not one this list gave; start again without it');
        before = { at: new Date(Number(match[1])), id: match[2]! };
      }
      const limit = isCsv(ctx.query) ? 1000 : 50;
      const entries = await ctx.resolve(TOKENS.auditLog).find({
        actionPrefix: filters.action,
        actorLabel: filters.actor,
        subject: subject ? { kind: subject[1]!, id: subject[2]! } : undefined,
        before,
        limit: limit + 1,
      });
      if (isCsv(ctx.query))
        return ctx.csv('audit-log.csv', [
          ['at', 'actor_kind', 'actor', 'action', 'subject_kind', 'subject_id', 'before', 'after', 'client_ip'],
          ...entries
            .slice(0, limit)
            .map((e) => [
              e.at,
              e.actor.kind,
              e.actor.label,
              e.action,
              e.subject?.kind,
              e.subject?.id,
              JSON.stringify(e.before),
              JSON.stringify(e.after),
              e.actor.clientIp,
            ]),
        ]);
      const items = entries.slice(0, limit);
      const last = entries.length > limit ? entries[limit - 1] : undefined;
      const { cursor: _cursor, ...kept } = filters;
      return ctx.render('audit', {
        pageTitle: 'Audit log',
        page: { items, next: last ? `${last.at.getTime()}.${last.id}` : null },
        filters: kept,
      });
    },
  },
];
