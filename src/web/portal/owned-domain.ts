import type { ChangeOptions } from '../../core/domain/domain-management-service';
import { TOKENS } from '../../core/tokens';
import type { PortalContext } from './portal-access';

/** The API's domain-management service: the one path by which a portal page reads or changes a domain. */
export const management = (ctx: PortalContext) => ctx.resolve(TOKENS.domainManagementService);

export const resellerOf = (ctx: PortalContext) => ctx.principal.reseller.id;

/** The domain named in the path, if it is the signed-in reseller's (else `not_owned`, as the API answers). */
export const ownedDomain = (ctx: PortalContext) => management(ctx).owned(resellerOf(ctx), ctx.params.domain ?? '');

/**
 * Every change a reseller makes from the portal is audited (ADR 17): the domain-management service
 * writes what was asked before it calls the registrar, and the outcome with what the answer taught us.
 */
export const AUDITED: ChangeOptions = { audited: true };
