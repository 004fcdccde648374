import { QueryRunner, TableColumnOptions } from 'typeorm';

/** Column helpers that pick the right type per database, so one migration runs on SQLite and PostgreSQL. */
export function isPostgres(queryRunner: QueryRunner): boolean {
  return queryRunner.connection.driver.options.type === 'postgres';
}

export function idColumn(): TableColumnOptions {
  return { name: 'id', type: 'integer', isPrimary: true, isGenerated: true, generationStrategy: 'increment' };
}

export function timestampColumn(queryRunner: QueryRunner, name: string, nullable = false): TableColumnOptions {
  return { name, type: isPostgres(queryRunner) ? 'timestamptz' : 'datetime', isNullable: nullable };
}

export function varchar(name: string, length: number, nullable = false): TableColumnOptions {
  return { name, type: 'varchar', length: String(length), isNullable: nullable };
}

export function integer(name: string, nullable = false): TableColumnOptions {
  return { name, type: 'integer', isNullable: nullable };
}
