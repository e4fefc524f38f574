import { type Harness, startHarness } from '../support/harness';
import { CONSOLE, createOperator, signInOverHttp } from '../support/web';

/** The console's settings page shows what is set, never a secret's value, even to an admin. */
describe('console settings page', () => {
  let h: Harness;
  const METRICS_TOKEN = 'metrics-bearer-0123456789abcdef';
  const SMTP_PASSWORD = 'smtp-p4ss-word';

  beforeAll(async () => {
    h = await startHarness({
      settings: {
        metricsToken: METRICS_TOKEN,
        smtpUrl: `smtp://mailer:${SMTP_PASSWORD}@mail.example.com:587`,
      },
      before: (m) => [m.console({ mountPath: CONSOLE })],
    });
  });
  afterAll(() => h.close());

  it('shows secret settings as set, and a URL without its password, to a viewer', async () => {
    const viewer = await createOperator(h, 'viewer@example.com', 'viewer', { withTotp: false });
    const { agent } = await signInOverHttp(h, viewer);
    const page = await agent.get(`${CONSOLE}/settings`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('metricsToken');
    expect(page.text).toContain('mail.example.com');
    expect(page.text).not.toContain(METRICS_TOKEN);
    expect(page.text).not.toContain(SMTP_PASSWORD);
  });
});
