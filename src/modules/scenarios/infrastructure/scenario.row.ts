import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';
import type { StoredStep } from '../domain/step-secrets';

@Entity('scenarios')
export class ScenarioRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ name: 'website_id', type: 'integer' }) websiteId!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'text', nullable: true }) description!: string | null;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'simple-json' }) steps!: StoredStep[];
  @Column({ name: 'session_id', type: 'integer', nullable: true }) sessionId!: number | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}
