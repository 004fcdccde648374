import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { AccountCredentials, CredentialRepository } from '../application/ports';
import { AccountRow } from './orm-entities';
import { toAccount } from './typeorm-account.repository';

/** The password hash stays in this adapter and AccountsService: it is never part of an Account. */
@Injectable()
export class TypeOrmCredentialRepository extends CredentialRepository {
  constructor(@InjectRepository(AccountRow) private readonly rows: Repository<AccountRow>) {
    super();
  }

  async findByEmail(email: string): Promise<AccountCredentials | null> {
    const row = await this.rows.findOneBy({ email });
    return row ? { account: toAccount(row), passwordHash: row.passwordHash } : null;
  }

  async setPasswordHash(accountId: number, hash: string, now: Date): Promise<void> {
    await this.rows.update({ id: accountId }, { passwordHash: hash, updatedAt: now });
  }
}
