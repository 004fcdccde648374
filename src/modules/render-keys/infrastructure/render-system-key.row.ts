import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('render_system_keys')
export class RenderSystemKeyRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ type: 'varchar' }) purpose!: string;
  @Column({ name: 'access_key', type: 'varchar' }) accessKey!: string;
  @Column({ name: 'secret_sealed', type: 'text' }) secretSealed!: string;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
}
