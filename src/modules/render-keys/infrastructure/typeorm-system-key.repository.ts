import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { SecretBox } from '../../../shared/secrets/secret-box';
import { SystemKey, SystemKeyRepository } from '../application/ports';
import type { SystemKeyPurpose } from '../domain/render-key';
import { RenderSystemKeyRow } from './render-system-key.row';

@Injectable()
export class TypeOrmSystemKeyRepository extends SystemKeyRepository {
  constructor(
    @InjectRepository(RenderSystemKeyRow) private readonly rows: Repository<RenderSystemKeyRow>,
    private readonly secrets: SecretBox,
  ) {
    super();
  }

  private toKey(row: RenderSystemKeyRow): SystemKey {
    return { accountId: row.accountId, purpose: row.purpose as SystemKeyPurpose, accessKey: row.accessKey, secret: this.secrets.open(row.secretSealed) };
  }

  async find(accountId: number, purpose: SystemKeyPurpose): Promise<SystemKey | null> {
    const row = await this.rows.findOneBy({ accountId, purpose });
    return row ? this.toKey(row) : null;
  }

  async insertOrKeep(key: SystemKey, now: Date): Promise<SystemKey> {
    try {
      await this.rows.insert({
        accountId: key.accountId,
        purpose: key.purpose,
        accessKey: key.accessKey,
        secretSealed: this.secrets.seal(key.secret),
        createdAt: now,
      });
    } catch (err) {
      // Another instance (or request) made the account's key first: the unique (account, purpose) index refused
      // this one, and theirs is the key every link is signed with.
      const kept = await this.find(key.accountId, key.purpose);
      if (kept) return kept;
      throw err;
    }
    return (await this.find(key.accountId, key.purpose)) ?? key;
  }

  async findByAccessKey(accessKey: string, purpose: SystemKeyPurpose): Promise<SystemKey | null> {
    const row = await this.rows.findOneBy({ accessKey, purpose });
    return row ? this.toKey(row) : null;
  }
}
