import { z } from 'zod';
import { TOKENS } from '../../core/tokens';
import { route } from '../route-table';
import { PeriodPrices, TldList, TldPricingRows } from '../wire/reply-schemas';
import { domainField, noInput } from '../wire/schemas';

const pricingRoute = (action: 'register' | 'renew' | 'transfer') =>
  route({
    method: 'get',
    path: `/order/pricing/domains/${action}`,
    access: 'reseller',
    summary: `${action} prices per period for one domain's TLD`,
    input: z.object({ domain: domainField }),
    output: PeriodPrices,
    handler: ({ input, reseller, resolve }) =>
      resolve(TOKENS.catalogueService).pricing(reseller.groupId, input.domain, action),
  });

export const catalogueRoutes = [
  route({
    method: 'get',
    path: '/tlds',
    access: 'reseller',
    summary: 'TLDs offered to the reseller\'s group, as [".com", …]',
    input: noInput,
    output: TldList,
    handler: ({ reseller, resolve }) => resolve(TOKENS.catalogueService).offeredTlds(reseller.groupId),
  }),
  route({
    method: 'get',
    path: '/tlds/pricing',
    access: 'reseller',
    summary: 'Prices of every offered TLD, one row per TLD and period',
    input: noInput,
    output: TldPricingRows,
    handler: ({ reseller, resolve }) => resolve(TOKENS.catalogueService).tldPricing(reseller.groupId),
  }),
  pricingRoute('register'),
  pricingRoute('renew'),
  pricingRoute('transfer'),
];
