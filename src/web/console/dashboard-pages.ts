import { TOKENS } from '../../core/tokens';
import { missingRegistrars } from '../../startup/readiness';
import type { ConsoleContext, ConsolePage } from './console-access';

/** The installed registrar plugins, their capabilities and their faults in the last hour. */
function registrarHealth(ctx: ConsoleContext) {
  const registrars = ctx.resolve(TOKENS.registrars);
  const faults = ctx.resolve(TOKENS.recentOperations).registrarFaults();
  return registrars.ids().map((id) => ({
    id,
    capabilities: registrars.get(id).capabilities,
    faults: faults.get(id) ?? 0,
  }));
}

export const DASHBOARD_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/',
    access: 'viewer',
    handler: async (ctx) => {
      // A fixed number of queries whatever the size of the business: eight counts and the TLD list.
      const [figures, tlds] = await Promise.all([
        ctx.resolve(TOKENS.consoleLists).dashboard(),
        ctx.resolve(TOKENS.catalogueService).listTlds(),
      ]);
      const registrars = ctx.resolve(TOKENS.registrars);
      return ctx.render('dashboard', {
        pageTitle: 'Dashboard',
        figures,
        registrars: registrarHealth(ctx),
        failedPasses: ctx.resolve(TOKENS.recentOperations).recentFailedPasses(),
        catalogueProblem: missingRegistrars(tlds, registrars),
      });
    },
  },
];
