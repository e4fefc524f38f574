import { TOKENS } from '../../core/tokens';
import { WEB_TOKENS } from '../web-tokens';
import { field } from '../web-app';
import type { ConsolePage } from './console-access';

/** The dashboard and the console's own accounts: operators and their sessions. */
export const ACCOUNT_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/sessions',
    access: 'viewer',
    handler: async (ctx) => {
      const sessions = await ctx.resolve(WEB_TOKENS.sessions).list('console');
      const operators = new Map((await ctx.resolve(TOKENS.operatorService).list()).map((o) => [o.id, o]));
      return ctx.render('sessions', {
        pageTitle: 'Sessions',
        sessions: sessions.map((s) => ({
          ...s,
          handle: s.idHash.slice(0, 16),
          email: operators.get(s.principalId)?.email ?? s.principalId,
          isCurrent: s.idHash === ctx.session?.idHash,
        })),
        operators: [...operators.values()],
        notice: field(ctx.query, 'notice') === 'revoked' ? 'The session is revoked.' : undefined,
      });
    },
  },
  {
    method: 'post',
    path: '/sessions/:handle/revoke',
    access: 'admin',
    handler: async (ctx) => {
      const sessions = ctx.resolve(WEB_TOKENS.sessions);
      const target = (await sessions.list('console')).find(
        (s) => s.idHash.startsWith(ctx.params.handle ?? '-') && ctx.params.handle?.length === 16,
      );
      if (target) {
        await sessions.end(target.idHash);
        await ctx.resolve(TOKENS.auditLog).record(ctx.actor, {
          action: 'operator.session.revoke',
          subject: { kind: 'operator', id: target.principalId },
          before: { createdAt: target.createdAt, clientIp: target.clientIp },
        });
      }
      return ctx.redirect('/sessions?notice=revoked');
    },
  },
];
