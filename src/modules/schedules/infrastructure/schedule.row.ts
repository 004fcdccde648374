import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('schedules')
export class ScheduleRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ name: 'website_id', type: 'integer' }) websiteId!: number;
  @Column({ name: 'scenario_id', type: 'integer', nullable: true }) scenarioId!: number | null;
  @Column({ name: 'session_id', type: 'integer', nullable: true }) sessionId!: number | null;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) frequency!: string;
  @Column({ type: 'varchar' }) time!: string;
  @Column({ type: 'varchar' }) timezone!: string;
  @Column({ name: 'day_of_week', type: 'integer', nullable: true }) dayOfWeek!: number | null;
  @Column({ type: Boolean }) enabled!: boolean;
  @Column({ name: 'next_run_at', type: Date, nullable: true }) nextRunAt!: Date | null;
  @Column({ name: 'last_run_at', type: Date, nullable: true }) lastRunAt!: Date | null;
  @Column({ name: 'last_job_id', type: 'varchar', nullable: true }) lastJobId!: string | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}
