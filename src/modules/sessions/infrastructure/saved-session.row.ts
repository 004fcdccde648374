import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('saved_sessions')
export class SavedSessionRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ name: 'logged_in_selector', type: 'varchar', nullable: true }) loggedInSelector!: string | null;
  @Column({ type: 'varchar' }) source!: string;
  @Column({ name: 'scenario_id', type: 'integer', nullable: true }) scenarioId!: number | null;
  @Column({ type: 'varchar' }) status!: string;
  /** The cookies and storage as JSON, sealed (SecretBox): no value sits in the database in clear. */
  @Column({ name: 'state_sealed', type: 'text', nullable: true }) stateSealed!: string | null;
  @Column({ type: 'integer' }) version!: number;
  @Column({ name: 'refreshed_at', type: Date, nullable: true }) refreshedAt!: Date | null;
  @Column({ name: 'expires_at', type: Date, nullable: true }) expiresAt!: Date | null;
  @Column({ type: 'text', nullable: true }) error!: string | null;
  @Column({ name: 'refresh_count', type: 'integer' }) refreshCount!: number;
  @Column({ name: 'refresh_claimed_until', type: Date, nullable: true }) refreshClaimedUntil!: Date | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}
