import { DEFAULT_DATABASE_URL, type Settings } from './config/settings';
import type { PeriodPrices } from './core/catalogue/catalogue';
import type { ResellerModule } from './module';

export const DEMO_EMAIL = 'demo@reseller.test';
const DEMO_GROUP = 'default';

export interface DemoCredentials {
  readonly email: string;
  readonly apiKey: string;
}

/**
 * SEED_DEMO when it is set; otherwise only on the embedded SQLite default, the quick start. A
 * configured database is a deployment: a demo reseller with credit there would be a free account.
 */
export function shouldSeedDemo(settings: Pick<Settings, 'seedDemo' | 'databaseUrl'>): boolean {
  return settings.seedDemo ?? settings.databaseUrl === DEFAULT_DATABASE_URL;
}

/**
 * On an empty database: a demo group, a few TLDs on the sandbox registrar and a demo reseller
 * with credit. Returns the demo credentials when it created them, or undefined when resellers
 * already exist (the key is only ever shown once).
 */
export async function seedDemo(module: ResellerModule): Promise<DemoCredentials | undefined> {
  const { resellers, catalogue } = module.services;
  // The demo TLDs are on the sandbox; a sandbox that failed to load gets no demo rather than a failed start.
  if (!module.registrars.has('sandbox')) return undefined;
  if ((await resellers.list()).length > 0) return undefined;
  const groups = await resellers.listGroups();
  if (!groups.some((g) => g.name === DEMO_GROUP)) await resellers.createGroup(DEMO_GROUP);
  const tlds: Array<[string, PeriodPrices, PeriodPrices, PeriodPrices]> = [
    ['.com', { 1: 1000, 2: 2000, 3: 3000, 5: 5000, 10: 10000 }, { 1: 1100, 2: 2200 }, { 1: 950 }],
    ['.net', { 1: 1200, 2: 2400, 5: 6000 }, { 1: 1300, 2: 2600 }, { 1: 1100 }],
    ['.org', { 1: 1150, 2: 2300 }, { 1: 1250 }, { 1: 1050 }],
    ['.io', { 1: 3500 }, { 1: 4000 }, { 1: 3500 }],
  ];
  for (const [tld, register, renew, transfer] of tlds) {
    await catalogue.setTld({ tld, group: DEMO_GROUP, registrar: 'sandbox', prices: { register, renew, transfer } });
  }
  const { apiKey } = await resellers.create(DEMO_EMAIL, DEMO_GROUP, 100_000);
  return { email: DEMO_EMAIL, apiKey };
}
