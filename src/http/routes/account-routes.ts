import { formatAmount } from '../../core/common/money';
import { TOKENS } from '../../core/tokens';
import { version } from '../../../package.json';
import { route } from '../route-table';
import { Credits, Version } from '../wire/reply-schemas';
import { noInput } from '../wire/schemas';

export const accountRoutes = [
  route({
    method: 'get',
    path: '/billing/credits',
    access: 'reseller',
    summary: 'The credit balance as a decimal string, like "123.45"',
    input: noInput,
    output: Credits,
    handler: async ({ reseller, resolve }) => formatAmount(await resolve(TOKENS.creditService).balanceOf(reseller)),
  }),
  route({
    method: 'get',
    path: '/version',
    access: 'reseller',
    summary: 'The module version string',
    input: noInput,
    output: Version,
    handler: async () => version,
  }),
];
