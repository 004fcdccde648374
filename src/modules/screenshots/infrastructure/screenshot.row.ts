import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { OutputFormat } from '../../../shared/domain/output-format';

@Entity('screenshots')
export class ScreenshotRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ name: 'website_id', type: 'integer' }) websiteId!: number;
  @Column({ name: 'job_id', type: 'varchar', nullable: true }) jobId!: string | null;
  @Column({ name: 'scenario_id', type: 'integer', nullable: true }) scenarioId!: number | null;
  @Column({ name: 'execution_id', type: 'varchar', nullable: true }) executionId!: string | null;
  @Column({ name: 'file_path', type: 'varchar' }) filePath!: string;
  @Column({ type: 'varchar', length: 8, default: 'png' }) format!: OutputFormat;
  @Column({ name: 'file_size', type: 'integer' }) fileSize!: number;
  @Column({ type: 'integer' }) width!: number;
  @Column({ type: 'integer' }) height!: number;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ name: 'taken_at', type: Date }) takenAt!: Date;
}
