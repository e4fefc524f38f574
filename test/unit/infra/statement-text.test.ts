import knex, { type Knex } from 'knex';
import type { Db } from '../../../src/infra/db/db';
import { rowInsert, StatementTexts } from '../../../src/infra/db/statement-text';
import {
  transitionForOrderQuery,
  transitionForOrderText,
} from '../../../src/infra/repositories/knex-domain-repository';
import type { DomainOrderChange, DomainStatus } from '../../../src/core/domain/domain';

/** Both dialects the module runs on, compiling only (no connection is opened). */
const dialects: Array<[string, Knex]> = [
  ['mysql2', knex({ client: 'mysql2' })],
  ['better-sqlite3', knex({ client: 'better-sqlite3', useNullAsDefault: true })],
];

afterAll(async () => {
  for (const [, db] of dialects) await db.destroy();
});

const native = (query: { toSQL(): { toNative(): { sql: string; bindings: readonly unknown[] } } }) => {
  const { sql, bindings } = query.toSQL().toNative();
  return { sql, bindings: [...bindings] };
};

describe.each(dialects)('a statement text built once (%s)', (_, db) => {
  it("is knex's own insert, with each later row's values in the order of the placeholders", () => {
    const insert = rowInsert<'id' | 'name' | 'amount' | 'note' | 'flag'>('things');
    const rows = [
      { id: 'a1', name: 'first', amount: 10, note: null, flag: true },
      { id: 'b2', name: "it's \u0000 odd", amount: -3, note: 'x', flag: false },
      { id: 'c3', name: '', amount: 0, note: '{"json":[1,2]}', flag: true },
    ];
    for (const row of rows) expect(insert.text(db, 'row', row)).toEqual(native(db('things').insert(row)));
  });

  it('keeps the values of an update that come before its conditions, and the constants written in', () => {
    type Name = 'id' | 'amount' | 'floor';
    const build = (d: Db, id: string, amount: number | string, floor: number | string) =>
      d('accounts')
        .where({ id, kind: 'prepaid' })
        .andWhere('balance', '>=', floor as number)
        .update({ balance: d.raw('balance + ?', [amount as number]), touched: 1 });
    const move = new StatementTexts<Name>((d, value) => build(d, value('id'), value('amount'), value('floor')));
    for (const [id, amount] of [
      ['r1', -500],
      ['r2', 250],
    ] as const)
      expect(move.text(db, 'move', { id, amount, floor: -amount })).toEqual(native(build(db, id, amount, -amount)));
  });

  it('builds one text per shape the caller names', () => {
    const update = new StatementTexts<string>((d, value, shape) =>
      d('rows')
        .whereIn(
          'status',
          Array.from({ length: Number(shape) }, (_, i) => value(`s${i}`)),
        )
        .update({ seen: value('seen') }),
    );
    expect(update.text(db, '1', { s0: 'Active', seen: 5 })).toEqual(
      native(db('rows').whereIn('status', ['Active']).update({ seen: 5 })),
    );
    expect(update.text(db, '3', { s0: 'Active', s1: 'Expired', s2: 'Grace', seen: 6 })).toEqual(
      native(db('rows').whereIn('status', ['Active', 'Expired', 'Grace']).update({ seen: 6 })),
    );
  });

  it("moves a domain for an order exactly as the repository's query does, in every shape", () => {
    const at = new Date(1_700_000_000_000);
    const cases: Array<[readonly DomainStatus[], DomainOrderChange, string | undefined]> = [
      [['Pending Registration'], { status: 'Active', expiryDate: '2027-11-21', syncedAt: at, at }, undefined],
      [['Active', 'Expired', 'Grace'], { status: 'Active', expiryDate: '2028-01-02', at }, 'r-9'],
      [
        ['Pending Transfer'],
        { status: 'Cancelled', resellerId: 'r-1', registrar: 'sandbox', expiryDate: null, premiumCosts: null, at },
        undefined,
      ],
      [['Cancelled'], { status: 'Pending Registration', premiumCosts: { register: 5000 }, at }, undefined],
    ];
    for (const [from, change, resellerId] of cases)
      expect(transitionForOrderText(db, 'd-1', from, change, resellerId)).toEqual(
        native(transitionForOrderQuery(db, 'd-1', from, change, resellerId)),
      );
  });
});
