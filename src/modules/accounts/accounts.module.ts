import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsService } from './application/accounts.service';
import { Authenticator } from './application/authenticator';
import { AccountRepository, ApiTokenRepository } from './application/ports';
import { TestConnectionController } from './http/test-connection.controller';
import { AccountRow, ApiTokenRow } from './infrastructure/orm-entities';
import { TypeOrmAccountRepository } from './infrastructure/typeorm-account.repository';
import { TypeOrmApiTokenRepository } from './infrastructure/typeorm-api-token.repository';

/** Accounts & Tokens: accounts, plans, subscriptions and SHA-256-hashed API tokens. */
@Module({
  imports: [TypeOrmModule.forFeature([AccountRow, ApiTokenRow])],
  controllers: [TestConnectionController],
  providers: [
    { provide: AccountRepository, useClass: TypeOrmAccountRepository },
    { provide: ApiTokenRepository, useClass: TypeOrmApiTokenRepository },
    AccountsService,
    Authenticator,
  ],
  exports: [AccountsService, Authenticator, AccountRepository],
})
export class AccountsModule {}

/** The same context without HTTP, for the operator CLI. */
@Module({
  imports: [TypeOrmModule.forFeature([AccountRow, ApiTokenRow])],
  providers: [
    { provide: AccountRepository, useClass: TypeOrmAccountRepository },
    { provide: ApiTokenRepository, useClass: TypeOrmApiTokenRepository },
    AccountsService,
  ],
  exports: [AccountsService],
})
export class AccountsCoreModule {}
