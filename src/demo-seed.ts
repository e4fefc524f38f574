import { DEFAULT_DATABASE_URL, type Settings } from './config/settings';
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
  if ((await resellers.list()).length > 0) return undefined;
  const groups = await resellers.listGroups();
  if (!groups.some((g) => g.name === DEMO_GROUP)) await resellers.createGroup(DEMO_GROUP);
  const tlds: Array<[string, string, string, string]> = [
    ['.com', '1=10.00,2=20.00,3=30.00,5=50.00,10=100.00', '1=11.00,2=22.00', '1=9.50'],
    ['.net', '1=12.00,2=24.00,5=60.00', '1=13.00,2=26.00', '1=11.00'],
    ['.org', '1=11.50,2=23.00', '1=12.50', '1=10.50'],
    ['.io', '1=35.00', '1=40.00', '1=35.00'],
  ];
  for (const [tld, register, renew, transfer] of tlds) {
    await catalogue.setTld({ tld, group: DEMO_GROUP, registrar: 'sandbox', prices: { register, renew, transfer } });
  }
  const { apiKey } = await resellers.create(DEMO_EMAIL, DEMO_GROUP, 100_000);
  return { email: DEMO_EMAIL, apiKey };
}
