import type { CallContext, RegistrarOutcome } from 'domain-reseller';
import type { DomainInfo } from './domain-info';
import * as frames from './frames';
import { refusalOf, refused, SUCCESS, settled } from './outcomes';
import type { RegistryCalls } from './registry-calls';

export interface RestoreInput {
  readonly domain: string;
  /** Overrides the `restoreReport` option for this call. */
  readonly sendReport?: boolean;
  readonly reason?: string;
}

const REPORT_STATEMENTS: readonly [string, string] = [
  'This registrar has not restored the Registered Name in order to assume the rights to use or sell the Registered Name for itself or for any third party.',
  "The information in this report is true to best of this registrar's knowledge, and this registrar acknowledges that intentionally supplying false information in this report shall constitute an incurable material breach of the Registry-Registrar Agreement.",
];

/** RFC 3915 restore of a domain in its redemption period: the request, then the report when asked for. */
export async function restoreDomain(
  calls: RegistryCalls,
  name: string,
  info: DomainInfo,
  request: { readonly sendReport: boolean; readonly reason?: string; readonly now: string },
  ctx: CallContext,
): Promise<RegistrarOutcome> {
  if (!info.rgpStatuses.includes('redemptionPeriod'))
    return refused(`${name} is not in its redemption period, so it cannot be restored`);
  const asked = await calls.run((t) => frames.domainUpdateFrame({ name, restore: { op: 'request' } }, t), ctx, false);
  if (!SUCCESS.has(asked.code)) return refusalOf(asked, name);
  if (!request.sendReport) return { ok: true };
  const { now } = request;
  const report = await calls.run(
    (t) =>
      frames.domainUpdateFrame(
        {
          name,
          restore: {
            op: 'report',
            report: {
              preData: `${name} registered by ${calls.clientId}, expiring ${info.expiresAt ?? 'unknown'}`,
              postData: `${name} restored with the same registration data`,
              deletedAt: info.updatedAt ?? now,
              restoredAt: now,
              reason: request.reason ?? 'Registrant error.',
              statements: REPORT_STATEMENTS,
            },
          },
        },
        t,
      ),
    ctx,
    false,
  );
  return settled(report, name);
}
