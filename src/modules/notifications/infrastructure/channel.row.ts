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
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}
