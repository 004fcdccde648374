import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('notification_channels')
export class NotificationChannelRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) type!: string;
  @Column({ name: 'target_sealed', type: 'text' }) targetSealed!: string;
  @Column({ type: 'varchar' }) events!: string;
  @Column({ name: 'website_ids', type: 'text', nullable: true }) websiteIds!: string | null;
  @Column({ type: 'boolean' }) enabled!: boolean;
  @Column({ name: 'failing_since', type: Date, nullable: true }) failingSince!: Date | null;
  @Column({ name: 'disabled_reason', type: 'varchar', nullable: true }) disabledReason!: string | null;
  @Column({ name: 'disabled_at', type: Date, nullable: true }) disabledAt!: Date | null;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}
