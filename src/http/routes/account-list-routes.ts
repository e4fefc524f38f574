import { TOKENS } from '../../core/tokens';
import { route } from '../route-table';
import {
  DomainList,
  DomainListQuery,
  OrderIdPath,
  OrderItem,
  OrderList,
  OrderListQuery,
  StatementQuery,
  StatementReply,
  toDomainListItem,
  toOrderItem,
  toStatementReply,
} from '../wire/account-wire';

const TAG = 'Account lists';

/** docs/api.md#account-lists: the reseller's own domains, orders and statement (beyond the contract). */
export const accountListRoutes = [
  route({
    method: 'get',
    path: '/account/domains',
    access: 'reseller',
    tag: TAG,
    summary: "A page of the reseller's domains, with filters (beyond the contract)",
    input: DomainListQuery,
    output: DomainList,
    handler: async ({ input, reseller, resolve }) => {
      const page = await resolve(TOKENS.accountLists).domains(reseller.id, {
        statuses: input.status,
        tld: input.tld,
        expiringWithinDays: input.expiringWithinDays,
        search: input.search,
        sort: input.sort,
        limit: input.limit,
        cursor: input.cursor,
      });
      return { domains: page.items.map(toDomainListItem), ...(page.next ? { next: page.next } : {}) };
    },
  }),
  route({
    method: 'get',
    path: '/account/orders',
    access: 'reseller',
    tag: TAG,
    summary: "A page of the reseller's orders with their status, newest first (beyond the contract)",
    input: OrderListQuery,
    output: OrderList,
    handler: async ({ input, reseller, resolve }) => {
      const page = await resolve(TOKENS.accountLists).orders(reseller.id, {
        statuses: input.status,
        actions: input.action,
        domain: input.domain,
        from: input.from,
        to: input.to,
        limit: input.limit,
        cursor: input.cursor,
      });
      return { orders: page.items.map(toOrderItem), ...(page.next ? { next: page.next } : {}) };
    },
  }),
  route({
    method: 'get',
    path: '/account/orders/:id',
    access: 'reseller',
    tag: TAG,
    summary: "One of the reseller's orders by its id (beyond the contract); 404 for any other id",
    input: OrderIdPath,
    output: OrderItem,
    handler: async ({ input, reseller, resolve }) =>
      toOrderItem(await resolve(TOKENS.accountLists).order(reseller.id, input.id)),
  }),
  route({
    method: 'get',
    path: '/account/statement',
    access: 'reseller',
    tag: TAG,
    summary: "A page of the reseller's statement: ledger entries with the running balance (beyond the contract)",
    input: StatementQuery,
    output: StatementReply,
    handler: async ({ input, reseller, resolve }) =>
      toStatementReply(
        await resolve(TOKENS.accountLists).statement(reseller.id, {
          from: input.from,
          to: input.to,
          limit: input.limit,
          cursor: input.cursor,
        }),
        resolve(TOKENS.currency),
      ),
  }),
];
