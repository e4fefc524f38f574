import { TOKENS } from '../../core/tokens';
import { type SignInLogins, signInPages } from '../sign-in-flow';
import { WEB_TOKENS } from '../web-tokens';
import type { ConsolePage, ConsolePrincipal } from './console-access';

/** The console's operators on the shared sign-in flow (src/web/sign-in-flow.ts): OperatorService answers. */
const OPERATOR_LOGINS: SignInLogins<ConsolePrincipal> = {
  area: 'console',
  principalKind: 'operator',
  auditPrefix: 'operator',
  failed: 'That email and password do not match an operator who may sign in.',
  identity: ({ operator }) => operator,
  async checkPassword(ctx, email, password) {
    const operators = ctx.resolve(TOKENS.operatorService);
    const operator = await operators.checkPassword(email, password);
    if (!operator) return { ok: false, reason: 'invalid' };
    if (operator.hasSecondFactor) return { ok: true, who: operator, next: { step: 'second_factor' } };
    // CONSOLE_REQUIRE_2FA: an admin without a second factor sets one up before it signs in.
    if (operator.role === 'admin' && ctx.resolve(WEB_TOKENS.settings).consoleRequire2fa)
      return {
        ok: true,
        who: operator,
        next: { step: 'enrol', sealedSecret: operators.newSecondFactor(operator).sealed },
      };
    return { ok: true, who: operator, next: { step: 'signed_in' } };
  },
  checkSecondFactor: (ctx, { operator }, _actor, code) =>
    ctx.resolve(TOKENS.operatorService).checkSecondFactor(operator.id, code),
  enrolment: {
    describe: (ctx, { operator }, sealed) => ctx.resolve(TOKENS.operatorService).describeSecondFactor(sealed, operator),
    enrol: (ctx, { operator }, sealed, code) => ctx.resolve(TOKENS.operatorService).enrol(operator.id, sealed, code),
  },
  link: {
    path: '/set-password',
    template: 'set-password',
    holder: (ctx, token) => ctx.resolve(TOKENS.operatorService).linkHolder(token),
    use: async (ctx, token, password, confirmation) => {
      await ctx.resolve(TOKENS.operatorService).setPassword(token, password, confirmation);
    },
  },
};

export const SIGN_IN_PAGES: readonly ConsolePage[] = signInPages(OPERATOR_LOGINS, {
  public: 'public',
  step: 'sign_in_step',
});
