import { MigrationInterface, QueryRunner, Table, TableForeignKey, TableIndex } from 'typeorm';
import { idColumn, integer, timestampColumn, varchar } from './support/columns';

/**
 * Batches (issue 47, item 3): many URLs captured as one aggregate over ordinary jobs. `batches` keeps the counters
 * (succeeded / failed / cancelled, moved in the same transaction as the item they count) and `status`, which
 * leaves `running` exactly once (a conditional update); `emitted_at` marks `batch.completed` as turned into
 * deliveries. `batch_items` is one row per URL, with its job and, once captured, its file in the storage port.
 * Deleting the account deletes its batches; deleting a batch its items.
 */
export class Batches1763801500000 implements MigrationInterface {
  name = 'Batches1763801500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.createTable(
      new Table({
        name: 'batches',
        columns: [
          { ...varchar('id', 36), isPrimary: true },
          integer('account_id'),
          varchar('name', 255, true),
          varchar('status', 16),
          integer('total'),
          { ...integer('succeeded'), default: 0 },
          { ...integer('failed'), default: 0 },
          { ...integer('cancelled'), default: 0 },
          timestampColumn(queryRunner, 'created_at'),
          timestampColumn(queryRunner, 'cancel_requested_at', true),
          timestampColumn(queryRunner, 'completed_at', true),
          timestampColumn(queryRunner, 'emitted_at', true),
        ],
        indices: [
          new TableIndex({ name: 'ix_batches_account_created', columnNames: ['account_id', 'created_at', 'id'] }),
          new TableIndex({ name: 'ix_batches_completed_emitted', columnNames: ['completed_at', 'emitted_at'] }),
        ],
        foreignKeys: [
          new TableForeignKey({ columnNames: ['account_id'], referencedTableName: 'accounts', referencedColumnNames: ['id'], onDelete: 'CASCADE' }),
        ],
      }),
    );
    await queryRunner.createTable(
      new Table({
        name: 'batch_items',
        columns: [
          idColumn(),
          varchar('batch_id', 36),
          integer('position'),
          { name: 'url', type: 'text', isNullable: false },
          varchar('job_id', 36),
          varchar('status', 16),
          { name: 'error', type: 'text', isNullable: true },
          varchar('file_key', 255, true),
          varchar('format', 8, true),
          integer('file_size', true),
          integer('width', true),
          integer('height', true),
          timestampColumn(queryRunner, 'finished_at', true),
        ],
        indices: [
          new TableIndex({ name: 'ux_batch_items_position', columnNames: ['batch_id', 'position'], isUnique: true }),
          new TableIndex({ name: 'ix_batch_items_job', columnNames: ['job_id'] }),
          new TableIndex({ name: 'ix_batch_items_status', columnNames: ['batch_id', 'status'] }),
        ],
        foreignKeys: [new TableForeignKey({ columnNames: ['batch_id'], referencedTableName: 'batches', referencedColumnNames: ['id'], onDelete: 'CASCADE' })],
      }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable('batch_items');
    await queryRunner.dropTable('batches');
  }
}
