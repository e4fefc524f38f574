import type { Actor } from '../../src/core/audit/audit-log';
import { startHarness, type Harness } from '../support/harness';
import { CONSOLE, createOperator, signInOverHttp, type TestOperator } from '../support/web';

const actor = (name: string): Actor => ({ kind: 'cli', id: null, label: `cli:${name}` });

describe('console audit log: the "who" filter', () => {
  let h: Harness;
  let viewer: TestOperator;

  beforeAll(async () => {
    h = await startHarness({ before: (module) => [module.console({ mountPath: CONSOLE })] });
    viewer = await createOperator(h, 'viewer@example.com', 'viewer', { withTotp: false });
    const audit = h.module.services.audit;
    // 60 entries by Alice, then 60 newer ones by Bob: filtered after paging, the first page of
    // Alice's would be empty (the newest 50 are Bob's).
    for (let i = 0; i < 60; i++) {
      await audit.record(actor('Alice'), { action: 'group.create', subject: { kind: 'group', id: `a${i}` } });
      h.clock.advance(1_000);
    }
    for (let i = 0; i < 60; i++) {
      await audit.record(actor('bob'), { action: 'group.create', subject: { kind: 'group', id: `b${i}` } });
      h.clock.advance(1_000);
    }
  });
  afterAll(() => h.close());

  const rowsOf = (html: string) => [...html.matchAll(/<td>cli:(\w+)<\/td>/g)].map((m) => m[1]);
  const nextOf = (html: string) => /id="next-page" href="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');

  it('filters in the query, so pages of one actor are full and the cursor leads to the rest', async () => {
    const { agent } = await signInOverHttp(h, viewer);
    const first = await agent.get(`${CONSOLE}/audit`).query({ actor: 'alice' });
    expect(first.status).toBe(200);
    expect(rowsOf(first.text)).toEqual(Array(50).fill('Alice'));
    const next = nextOf(first.text);
    expect(next).toBeDefined();
    const second = await agent.get(next!);
    expect(rowsOf(second.text)).toEqual(Array(10).fill('Alice'));
    expect(nextOf(second.text)).toBeUndefined();
    const subjects = [...`${first.text}${second.text}`.matchAll(/group:a(\d+)/g)].map((m) => Number(m[1]));
    expect(new Set(subjects).size).toBe(60);
  });

  it('exports only the actor’s entries to CSV', async () => {
    const { agent } = await signInOverHttp(h, viewer);
    const csv = await agent.get(`${CONSOLE}/audit`).query({ actor: 'BOB', format: 'csv' });
    const lines = csv.text.trim().split('\n').slice(1);
    expect(lines).toHaveLength(60);
    expect(lines.every((l) => l.includes('cli:bob'))).toBe(true);
  });

  it('takes % and _ in the filter as themselves', async () => {
    const { agent } = await signInOverHttp(h, viewer);
    const reply = await agent.get(`${CONSOLE}/audit`).query({ actor: '%' });
    expect(rowsOf(reply.text)).toEqual([]);
  });
});
