import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { AlertWhen } from '../domain/change-conditions';
import type { CaptureOptions } from '../../../shared/domain/capture-option-table';

@Entity('websites')
export class WebsiteRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) url!: string;
  @Column({ name: 'viewport_width', type: 'integer' }) viewportWidth!: number;
  @Column({ name: 'viewport_height', type: 'integer' }) viewportHeight!: number;
  @Column({ name: 'full_page', type: Boolean }) fullPage!: boolean;
  @Column({ type: 'varchar' }) status!: string;
  /** JSON; NULL for rows from before the column (no defaults saved). */
  @Column({ name: 'capture_options', type: 'simple-json', nullable: true }) captureOptions!: CaptureOptions | null;
  @Column({ name: 'change_threshold', type: 'double precision', default: 0.001 }) changeThreshold!: number;
  /** JSON list of CSS selectors; NULL for none. */
  @Column({ name: 'change_ignore_selectors', type: 'simple-json', nullable: true }) changeIgnoreSelectors!: string[] | null;
  /** JSON `alert_when` (wire shape); NULL for none. */
  @Column({ name: 'alert_when', type: 'simple-json', nullable: true }) alertWhen!: AlertWhen | null;
  /** JSON list of regular expressions; NULL for none. */
  @Column({ name: 'ignore_text', type: 'simple-json', nullable: true }) ignoreText!: string[] | null;
  @Column({ name: 'last_screenshot_at', type: Date, nullable: true }) lastScreenshotAt!: Date | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}
