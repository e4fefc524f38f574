import { ContainerModule } from 'inversify';
import type { Knex } from 'knex';
import type { Settings } from '../config/settings';
import { AuditLog } from '../core/audit/audit-log';
import { FailureThrottle, ADDRESS_FAILURES_FACTOR } from '../core/auth/failure-throttle';
import { OneTimeLinks } from '../core/auth/one-time-links';
import { OperatorService } from '../core/operator/operator-service';
import { TOKENS } from '../core/tokens';
import { argon2idHasher } from '../infra/crypto/argon2-password-hasher';
import { totpCodes } from '../infra/crypto/totp-codes';
import { KnexAuditLogRepository } from '../infra/repositories/knex-audit-log-repository';
import { KnexOneTimeLinkRepository } from '../infra/repositories/knex-one-time-link-repository';
import { KnexOperatorRepository } from '../infra/repositories/knex-operator-repository';
import { KnexWebSessionRepository } from '../infra/repositories/knex-web-session-repository';
import { WebSessions } from './sessions';
import { WEB_TOKENS } from './web-tokens';

/**
 * The bindings of the audit log, operator accounts, one-time links and web sessions. Each
 * dependency is fetched by its typed token (`get(TOKENS.clock)` is a Clock), so a swapped
 * dependency does not compile.
 */
export function webModule(settings: Settings, knex: Knex): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(WEB_TOKENS.settings).toConstantValue(settings);
    bind(TOKENS.auditLog).toDynamicValue(
      ({ get }) => new AuditLog(new KnexAuditLogRepository(knex), get(TOKENS.clock), settings.auditLogRetentionDays),
    );
    bind(TOKENS.oneTimeLinks).toDynamicValue(
      ({ get }) => new OneTimeLinks(new KnexOneTimeLinkRepository(knex), get(TOKENS.clock)),
    );
    bind(TOKENS.operatorService).toDynamicValue(({ get }) => {
      const clock = get(TOKENS.clock);
      return new OperatorService(
        new KnexOperatorRepository(knex),
        get(TOKENS.oneTimeLinks),
        argon2idHasher,
        totpCodes('Reseller console', () => clock.now()),
        get(TOKENS.secretBox),
        get(TOKENS.auditLog),
        clock,
      );
    });
    bind(WEB_TOKENS.sessions).toDynamicValue(
      ({ get }) =>
        new WebSessions(new KnexWebSessionRepository(knex), get(TOKENS.clock), {
          idleMs: settings.webSessionIdleMinutes * 60_000,
          absoluteMs: settings.webSessionMaxHours * 3_600_000,
        }),
    );
    bind(WEB_TOKENS.signInThrottle).toDynamicValue(
      ({ get }) =>
        new FailureThrottle(
          {
            maxFailures: settings.authMaxFailures,
            maxFailuresPerAddress: settings.authMaxFailures * ADDRESS_FAILURES_FACTOR,
            windowSeconds: settings.authFailureWindowSeconds,
            blockSeconds: settings.authBlockSeconds,
          },
          get(TOKENS.clock),
        ),
    );
  });
}
