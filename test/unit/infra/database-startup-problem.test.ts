import { databaseStartupProblem } from '../../../src/infra/db/errors';

/** What mysql2 rejects with, reduced to what the explanation reads. */
const driverError = (code: string, errno?: number) => Object.assign(new Error(code), { code, errno });

describe('a database problem at start-up', () => {
  const url = 'mysql://reseller:secret@db.internal:3307/shop';

  it('says which database does not exist and the statement that creates it', () => {
    expect(databaseStartupProblem(driverError('ER_BAD_DB_ERROR', 1049), url)).toBe(
      [
        'the database "shop" does not exist on db.internal:3307 (DATABASE_URL).',
        'Create it as a user allowed to, then start again; the tables are created on start:',
        '  CREATE DATABASE `shop` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;',
        'docs/operations.md (section 2, the database) also creates a user for it and its grants.',
      ].join('\n'),
    );
  });

  it('names the refused user without its password', () => {
    const text = databaseStartupProblem(driverError('ER_ACCESS_DENIED_ERROR', 1045), url);
    expect(text).toBe(
      'MariaDB at db.internal:3307 refused the user "reseller" (DATABASE_URL): check the user name, the password and the grants',
    );
  });

  it('says the server cannot be reached', () => {
    expect(databaseStartupProblem(driverError('ECONNREFUSED'), 'mariadb://root@127.0.0.1/shop')).toBe(
      'cannot reach MariaDB at 127.0.0.1:3306 (DATABASE_URL): ECONNREFUSED',
    );
  });

  it('leaves other errors, and SQLite, to their own message', () => {
    expect(databaseStartupProblem(new Error('boom'), url)).toBeUndefined();
    expect(
      databaseStartupProblem(driverError('ER_BAD_DB_ERROR', 1049), 'sqlite:./data/reseller.sqlite'),
    ).toBeUndefined();
  });
});
