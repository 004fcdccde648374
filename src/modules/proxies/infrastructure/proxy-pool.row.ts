import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity('proxy_pools')
export class ProxyPoolRow {
  @PrimaryGeneratedColumn() id!: number;
  @Column({ name: 'account_id', type: 'integer' }) accountId!: number;
  @Column({ type: 'varchar' }) name!: string;
  @Column({ type: 'varchar' }) rotation!: string;
  /** The JSON list of proxy URLs, sealed (SecretBox): their credentials never sit in the database in clear. */
  @Column({ name: 'proxies_sealed', type: 'text' }) proxiesSealed!: string;
  @Column({ name: 'created_at', type: Date }) createdAt!: Date;
  @Column({ name: 'updated_at', type: Date }) updatedAt!: Date;
}
