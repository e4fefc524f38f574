import type { Route } from '../route-table';
import { accountListRoutes } from './account-list-routes';
import { accountRoutes } from './account-routes';
import { catalogueRoutes } from './catalogue-routes';
import { searchRoutes } from './search-routes';
import { domainRoutes } from './domain-routes';
import { orderRoutes } from './order-routes';

/** The whole HTTP API: every route the module serves, in one table. */
export const ROUTES: readonly Route[] = [
  ...accountRoutes,
  ...catalogueRoutes,
  ...orderRoutes,
  ...searchRoutes,
  ...domainRoutes,
  ...accountListRoutes,
];
