import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import type { OutputFormat } from '../../../shared/domain/output-format';
import type { BatchStatus, StoredItemStatus } from '../domain/batch';

@Entity('batches')
export class BatchRow {
  @PrimaryColumn({ type: 'varchar', length: 36 }) id!: string;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ type: 'varchar', length: 255, nullable: true }) name!: string | null;
  @Column({ type: 'varchar', length: 16 }) status!: BatchStatus;
  @Column({ type: 'integer' }) total!: number;
  @Column({ type: 'integer', default: 0 }) succeeded!: number;
  @Column({ type: 'integer', default: 0 }) failed!: number;
  @Column({ type: 'integer', default: 0 }) cancelled!: number;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'cancel_requested_at', type: Date, nullable: true }) cancelRequestedAt!: Date | null;
  @Column({ name: 'completed_at', type: Date, nullable: true }) completedAt!: Date | null;
  @Column({ name: 'emitted_at', type: Date, nullable: true }) emittedAt!: Date | null;
}

@Entity('batch_items')
export class BatchItemRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'batch_id', type: 'varchar', length: 36 }) batchId!: string;
  @Column({ type: 'integer' }) position!: number;
  @Column({ type: 'text' }) url!: string;
  @Column({ name: 'job_id', type: 'varchar', length: 36 }) jobId!: string;
  @Column({ type: 'varchar', length: 16 }) status!: StoredItemStatus;
  @Column({ type: 'text', nullable: true }) error!: string | null;
  @Column({ name: 'file_key', type: 'varchar', length: 255, nullable: true }) fileKey!: string | null;
  @Column({ type: 'varchar', length: 8, nullable: true }) format!: OutputFormat | null;
  @Column({ name: 'file_size', type: 'integer', nullable: true }) fileSize!: number | null;
  @Column({ type: 'integer', nullable: true }) width!: number | null;
  @Column({ type: 'integer', nullable: true }) height!: number | null;
  @Column({ name: 'finished_at', type: Date, nullable: true }) finishedAt!: Date | null;
}
