import type { DomainRecord } from '../../core/domain/domain';
import { TOKENS } from '../../core/tokens';
import type { PortalContext } from './portal-access';

/** The API's domain-management service: the one path by which a portal page reads or changes a domain. */
export const management = (ctx: PortalContext) => ctx.resolve(TOKENS.domainManagementService);

export const resellerOf = (ctx: PortalContext) => ctx.principal.reseller.id;

/** The domain named in the path, if it is the signed-in reseller's (else `not_owned`, as the API answers). */
export const ownedDomain = (ctx: PortalContext) => management(ctx).owned(resellerOf(ctx), ctx.params.domain ?? '');

/**
 * The audit entry of a change made at the domain's registrar, by the signed-in reseller. Written
 * after the registrar's answer, since that call cannot share our transaction (ADR 17).
 */
export async function recordDomainChange(
  ctx: PortalContext,
  domain: DomainRecord,
  action: string,
  change: { readonly before?: unknown; readonly after?: unknown } = {},
): Promise<void> {
  await ctx
    .resolve(TOKENS.auditLog)
    .record(ctx.actor, { action: `reseller.domain.${action}`, subject: { kind: 'domain', id: domain.id }, ...change });
}
