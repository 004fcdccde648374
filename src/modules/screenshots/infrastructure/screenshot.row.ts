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
  @Column({ name: 'full_page', type: Boolean, default: false }) fullPage!: boolean;
  @Column({ name: 'compare_key', type: 'varchar', nullable: true }) compareKey!: string | null;
  /** Digest of the file's bytes (change history's shortcut for captures identical to the previous one). */
  @Column({ name: 'content_hash', type: 'varchar', nullable: true }) contentHash!: string | null;
  /** JSON list of [x, y, width, height]. */
  @Column({ name: 'ignore_boxes', type: 'text', nullable: true }) ignoreBoxes!: string | null;
  @Column({ name: 'previous_id', type: 'integer', nullable: true }) previousId!: number | null;
  @Column({ name: 'change_status', type: 'varchar', nullable: true }) changeStatus!: 'pending' | 'done' | null;
  @Column({ name: 'changed_ratio', type: 'double precision', nullable: true }) changedRatio!: number | null;
  @Column({ type: Boolean, nullable: true }) changed!: boolean | null;
  @Column({ name: 'compared_at', type: Date, nullable: true }) comparedAt!: Date | null;
  @Column({ name: 'compare_claimed_until', type: Date, nullable: true }) compareClaimedUntil!: Date | null;
  /** JSON of the capture report; null for scenario shots and rows from before it was recorded. */
  @Column({ name: 'capture_report', type: 'text', nullable: true }) captureReport!: string | null;
  /** Digest of the visible text stored beside the image; null when none was kept. */
  @Column({ name: 'text_hash', type: 'varchar', nullable: true }) textHash!: string | null;
  /** Lines added / removed in the visible text since the previous capture; null when either kept no text. */
  @Column({ name: 'text_added', type: 'integer', nullable: true }) textAdded!: number | null;
  @Column({ name: 'text_removed', type: 'integer', nullable: true }) textRemoved!: number | null;
}
