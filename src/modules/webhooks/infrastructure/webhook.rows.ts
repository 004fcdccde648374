import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';

@Entity('webhooks')
export class WebhookRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ type: 'varchar' }) url!: string;
  @Column({ type: 'varchar' }) events!: string;
  @Column({ type: 'varchar', nullable: true }) description!: string | null;
  @Column({ type: 'boolean' }) enabled!: boolean;
  @Column({ name: 'secret_sealed', type: 'text' }) secretSealed!: string;
  @Column({ name: 'failing_since', type: Date, nullable: true }) failingSince!: Date | null;
  @Column({ name: 'disabled_reason', type: 'varchar', nullable: true }) disabledReason!: string | null;
  @Column({ name: 'disabled_at', type: Date, nullable: true }) disabledAt!: Date | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}

@Entity('webhook_deliveries')
export class WebhookDeliveryRow {
  @PrimaryColumn({ type: 'varchar' }) id!: string;
  @Column({ name: 'webhook_id', type: 'integer', nullable: true }) webhookId!: number | null;
  @Column({ name: 'channel_id', type: 'integer', nullable: true }) channelId!: number | null;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ name: 'event_type', type: 'varchar' }) eventType!: string;
  @Column({ name: 'source_id', type: 'varchar', nullable: true }) sourceId!: string | null;
  @Column({ type: 'text' }) payload!: string;
  @Column({ type: 'varchar' }) status!: string;
  @Column({ type: 'integer' }) attempts!: number;
  @Column({ name: 'next_attempt_at', type: Date }) nextAttemptAt!: Date;
  @Column({ name: 'locked_until', type: Date, nullable: true }) lockedUntil!: Date | null;
  @Column({ name: 'last_status_code', type: 'integer', nullable: true }) lastStatusCode!: number | null;
  @Column({ name: 'last_error', type: 'varchar', nullable: true }) lastError!: string | null;
  @Column({ name: 'last_duration_ms', type: 'integer', nullable: true }) lastDurationMs!: number | null;
  @Column({ name: 'last_attempt_at', type: Date, nullable: true }) lastAttemptAt!: Date | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
}
