import type { Db } from './db';

/** What knex's builders and raw statements answer to `toSQL().toNative()`. */
interface Compilable {
  toSQL(): { toNative(): { sql: string; bindings: readonly unknown[] } };
}

/** A statement's text and its values, ready for `db.raw` or a driver's `query`. */
export interface StatementText {
  readonly sql: string;
  readonly bindings: unknown[];
}

/** Where a placeholder's value comes from: a named value of the call, or a constant of the statement. */
type Source = { readonly name: string } | { readonly constant: unknown };

interface Compiled {
  readonly sql: string;
  readonly sources: readonly Source[];
}

/** Stands for a named value while the statement is built; no real value starts with NUL. */
const MARK = '\u0000statement-value:';

/**
 * A statement on the hot path whose text knex builds once and then reuses: the first call in a
 * dialect (and shape) builds it with knex's own builder, each value a marker; every later call
 * only puts its values in the order the placeholders came out. The text and the values are
 * exactly what knex's builder makes for the same call (test/unit/infra/statement-text.test.ts
 * compares them), so the statement sent, the answers and knex's query events are unchanged; what
 * is saved is building and compiling the query on every call (bench/RESULTS.md).
 *
 * `build` must make the same statement for every call of one `shape` (the caller's key for
 * whatever changes the text: which columns an update sets, how many statuses a `whereIn` lists),
 * taking every value that varies from `value(name)`. Values that are the same on every call may
 * be written in as they are.
 */
export class StatementTexts<Name extends string> {
  /**
   * Per knex configuration (one dialect and identifier rule each; a transaction's client shares its
   * instance's), per shape.
   */
  private readonly compiled = new WeakMap<object, Map<string, Compiled>>();

  constructor(
    private readonly build: (
      db: Db,
      value: (name: Name) => string,
      shape: string,
      /** The values of the call the statement is first built for (which names there are). */
      values: Readonly<Record<Name, unknown>>,
    ) => Compilable,
  ) {}

  /** The statement of `shape` with `values`, in `db`'s dialect. */
  text(db: Db, shape: string, values: Readonly<Record<Name, unknown>>): StatementText {
    const compiled = this.compiledFor(db, shape, values);
    const { sources } = compiled;
    const bindings = new Array<unknown>(sources.length);
    for (let i = 0; i < sources.length; i++) {
      const source = sources[i]!;
      bindings[i] = 'name' in source ? values[source.name as Name] : source.constant;
    }
    return { sql: compiled.sql, bindings };
  }

  private compiledFor(db: Db, shape: string, values: Readonly<Record<Name, unknown>>): Compiled {
    const config = db.client.config as object;
    let byShape = this.compiled.get(config);
    if (byShape === undefined) {
      byShape = new Map();
      this.compiled.set(config, byShape);
    }
    let compiled = byShape.get(shape);
    if (compiled === undefined) {
      const { sql, bindings } = this.build(db, (name) => `${MARK}${name}`, shape, values)
        .toSQL()
        .toNative();
      compiled = {
        sql,
        sources: bindings.map((binding) =>
          typeof binding === 'string' && binding.startsWith(MARK)
            ? { name: binding.slice(MARK.length) }
            : { constant: binding },
        ),
      };
      byShape.set(shape, compiled);
    }
    return compiled;
  }
}

/**
 * The insert of one row into `table`, every row given with the same columns (a row's shape is
 * its columns: a repository that inserts rows of two shapes names them apart).
 */
export function rowInsert<Column extends string>(table: string): StatementTexts<Column> {
  return new StatementTexts<Column>((db, value, _shape, row) =>
    db(table).insert(Object.fromEntries(Object.keys(row).map((column) => [column, value(column as Column)]))),
  );
}
