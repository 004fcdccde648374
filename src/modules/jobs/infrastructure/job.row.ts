import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('jobs')
export class JobRow {
  @PrimaryColumn({ type: 'varchar' }) id!: string;
  @Column({ type: 'varchar' }) type!: string;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ name: 'website_id', type: 'integer', nullable: true }) websiteId!: number | null;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'varchar' }) source!: string;
  @Column({ type: 'simple-json', nullable: true }) options!: Record<string, unknown> | null;
  @Column({ name: 'idempotency_key', type: 'varchar', nullable: true }) idempotencyKey!: string | null;
  @Column({ type: 'integer' }) attempts!: number;
  @Column({ type: 'text', nullable: true }) error!: string | null;
  /** JobProps.resultId: the column's name predates job kinds (the API still calls it screenshot_id). */
  @Column({ name: 'screenshot_id', type: 'integer', nullable: true }) resultId!: number | null;
  @Column({ name: 'scenario_id', type: 'integer', nullable: true }) scenarioId!: number | null;
  @Column({ name: 'schedule_id', type: 'integer', nullable: true }) scheduleId!: number | null;
  @Column({ type: 'simple-json', nullable: true }) result!: unknown;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'started_at', type: Date, nullable: true }) startedAt!: Date | null;
  @Column({ name: 'finished_at', type: Date, nullable: true }) finishedAt!: Date | null;
}
