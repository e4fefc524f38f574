/** Ids are made by the application, not the database (MariaDB has no RETURNING through knex). */
export interface IdGenerator {
  next(): string;
}
