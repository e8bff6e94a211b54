import { PostgresDialect, sql, type DatabaseIntrospector, type DatabaseMetadata, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

/**
 * PostgreSQL introspection limited to the connection's current schema (search_path). Scent keeps
 * everything, its migration bookkeeping included, in that schema, so several Scent databases can
 * share one PostgreSQL database; Kysely's default introspector reads every schema, and so can both
 * see another instance's tables and fail while another schema is being dropped.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.#db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{
      table: string; schema: string; kind: string; column: string; type: string; nullable: boolean; has_default: boolean;
    }>`
      select c.relname as "table", n.nspname as "schema", c.relkind as kind, a.attname as "column",
             format_type(a.atttypid, a.atttypmod) as type, not a.attnotnull as nullable, a.atthasdef as has_default
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      where n.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const r of rows) {
      let table = tables.get(r.table);
      if (!table) tables.set(r.table, (table = { name: r.table, schema: r.schema, isView: r.kind === 'v', columns: [] }));
      table.columns.push({
        name: r.column, dataType: r.type, isNullable: r.nullable, hasDefaultValue: r.has_default,
        isAutoIncrementing: false, comment: undefined,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

export class ScopedPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
