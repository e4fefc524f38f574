import { ContainerModule } from 'inversify';
import type { Knex } from 'knex';
import { authFailureLimits, type Settings } from '../config/settings';
import { AuditLog } from '../core/audit/audit-log';
import { FailureThrottle, throttlePolicy } from '../core/auth/failure-throttle';
import { Passwords } from '../core/auth/passwords';
import { SecondFactorCodes } from '../core/auth/second-factor';
import type { Clock } from '../core/common/clock';
import { ConsoleLists } from '../core/console/console-lists';
import type { SecretBox } from '../core/reseller/reseller';
import { RecentOperations } from '../core/console/recent-operations';
import { OperatorService } from '../core/operator/operator-service';
import { PortalLogins } from '../core/reseller/portal-logins';
import { TOKENS } from '../core/tokens';
import { argon2idHasher } from '../infra/crypto/argon2-password-hasher';
import { totpCodes } from '../infra/crypto/totp-codes';
import { KnexAuditLogRepository } from '../infra/repositories/knex-audit-log-repository';
import { KnexConsoleViews } from '../infra/repositories/knex-console-views';
import type { HotReads } from '../infra/db/driver-pools';
import { KnexWebSessionRepository } from '../infra/repositories/knex-web-session-repository';
import { provider } from '../provide';
import { WebSessions } from './sessions';
import { WEB_TOKENS } from './web-tokens';

/** TOTP codes whose authenticator-app entry names `issuer` ("Reseller console", "Reseller portal"). */
const secondFactorCodes = (issuer: string, secrets: SecretBox, clock: Clock) =>
  new SecondFactorCodes(
    totpCodes(issuer, () => clock.now()),
    secrets,
  );

/**
 * The audit log, operator accounts, one-time links, web sessions and the sign-in throttle
 * (src/container.ts loads it). `reads`: the hot-path reader every page's session read goes through.
 */
export function webModule(settings: Settings, knex: Knex, reads: HotReads): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const provide = provider(bind);
    bind(WEB_TOKENS.settings).toConstantValue(settings);
    provide(
      TOKENS.auditLog,
      { clock: TOKENS.clock },
      ({ clock }) => new AuditLog(new KnexAuditLogRepository(knex), clock, settings.auditLogRetentionDays),
    );
    provide(
      TOKENS.operatorService,
      { uow: TOKENS.unitOfWork, secrets: TOKENS.secretBox, clock: TOKENS.clock },
      ({ uow, secrets, clock }) =>
        new OperatorService(
          uow,
          new Passwords(argon2idHasher),
          secondFactorCodes('Reseller console', secrets, clock),
          clock,
        ),
    );
    provide(TOKENS.recentOperations, { clock: TOKENS.clock }, ({ clock }) => new RecentOperations(clock));
    provide(
      TOKENS.portalLogins,
      { uow: TOKENS.unitOfWork, secrets: TOKENS.secretBox, clock: TOKENS.clock },
      ({ uow, secrets, clock }) =>
        new PortalLogins(
          uow,
          new Passwords(argon2idHasher),
          secondFactorCodes('Reseller portal', secrets, clock),
          clock,
        ),
    );
    provide(
      TOKENS.consoleLists,
      { clock: TOKENS.clock },
      ({ clock }) => new ConsoleLists(new KnexConsoleViews(knex), clock),
    );
    provide(
      WEB_TOKENS.sessions,
      { clock: TOKENS.clock },
      ({ clock }) =>
        new WebSessions(new KnexWebSessionRepository(knex, reads), clock, {
          idleMs: settings.webSessionIdleMinutes * 60_000,
          absoluteMs: settings.webSessionMaxHours * 3_600_000,
        }),
    );
    provide(
      WEB_TOKENS.signInThrottle,
      { clock: TOKENS.clock },
      ({ clock }) => new FailureThrottle(throttlePolicy(authFailureLimits(settings)), clock),
    );
  });
}
