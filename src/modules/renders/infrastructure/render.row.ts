import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { OutputFormat } from '../../../shared/domain/output-format';

@Entity('renders')
export class RenderRow {
  @PrimaryColumn({ type: 'varchar' }) id!: string;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ name: 'cache_key', type: 'varchar' }) cacheKey!: string;
  @Column({ name: 'live_key', type: 'varchar', nullable: true }) liveKey!: string | null;
  @Column({ type: 'text' }) url!: string;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'varchar' }) format!: OutputFormat;
  @Column({ name: 'file_key', type: 'varchar', nullable: true }) fileKey!: string | null;
  @Column({ name: 'file_size', type: 'integer', nullable: true }) fileSize!: number | null;
  @Column({ type: 'integer', nullable: true }) width!: number | null;
  @Column({ type: 'integer', nullable: true }) height!: number | null;
  @Column({ name: 'capture_report', type: 'text', nullable: true }) captureReport!: string | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'finished_at', type: Date, nullable: true }) finishedAt!: Date | null;
  @Column({ name: 'expires_at', type: Date, nullable: true }) expiresAt!: Date | null;
  @Column({ name: 'keep_until', type: Date }) keepUntil!: Date;
}
