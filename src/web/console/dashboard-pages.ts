import { TOKENS } from '../../core/tokens';
import type { ConsolePage } from './console-access';

export const DASHBOARD_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/',
    access: 'viewer',
    handler: async (ctx) => {
      const resellers = await ctx.resolve(TOKENS.resellerService).list();
      const totalCredit = await ctx.resolve(TOKENS.unitOfWork).read.ledger.totalBalance();
      return ctx.render('dashboard', {
        pageTitle: 'Dashboard',
        figures: {
          resellers: resellers.length,
          active: resellers.filter((r) => r.status === 'active').length,
          totalCredit,
        },
      });
    },
  },
];
