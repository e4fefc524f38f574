import { loadSettings } from '../../src/config/settings';
import { shouldSeedDemo } from '../../src/demo-seed';

describe('whether the stand-alone server seeds the demo reseller', () => {
  it('seeds on the embedded SQLite default (the quick start)', () => {
    expect(shouldSeedDemo(loadSettings({}))).toBe(true);
  });

  it('does not seed a configured MariaDB database', () => {
    expect(shouldSeedDemo(loadSettings({ DATABASE_URL: 'mysql://reseller:secret@db.internal:3306/reseller' }))).toBe(
      false,
    );
  });

  it('does not seed a configured SQLite file elsewhere', () => {
    expect(shouldSeedDemo(loadSettings({ DATABASE_URL: 'sqlite:/var/lib/reseller/reseller.sqlite' }))).toBe(false);
  });

  it('follows SEED_DEMO when it is set, either way', () => {
    expect(shouldSeedDemo(loadSettings({ DATABASE_URL: 'mysql://root@127.0.0.1/reseller', SEED_DEMO: 'true' }))).toBe(
      true,
    );
    expect(shouldSeedDemo(loadSettings({ SEED_DEMO: 'false' }))).toBe(false);
  });
});
