import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ENVIRONMENT_VARIABLES } from '../../src/config/settings';
import { ROUTES } from '../../src/http/routes';

const README = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');

describe('the README', () => {
  it('keeps the start and test commands in its first lines', () => {
    const top = README.split('\n').slice(0, 10).join('\n');
    expect(top).toContain('npm ci && npm start');
    expect(top).toContain('npm ci && npm test');
  });

  it.each([
    ...Object.keys(ENVIRONMENT_VARIABLES),
    'CONFIG_FILE',
    'SANDBOX_LATENCY_MS',
    'SANDBOX_DISABLED_CAPABILITIES',
  ])('documents the setting %s in its configuration table', (name) => {
    expect(README).toMatch(new RegExp(`^\\| [^|]*\`${name}\``, 'm'));
  });

  it.each(ROUTES.map((r) => `${r.method.toUpperCase()} ${r.path.replace(':domain', '{domain}')}`))(
    'lists the endpoint %s',
    (endpoint) => {
      expect(README).toContain(`\`${endpoint}\``);
    },
  );
});
