import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsService } from './application/accounts.service';
import { Authenticator } from './application/authenticator';
import { AccountRepository, ApiTokenRepository, CredentialRepository, PasswordHasher, SessionRepository, SignInThrottleRepository } from './application/ports';
import { SignInService } from './application/sign-in.service';
import { TestConnectionController } from './http/test-connection.controller';
import { AccountRow, ApiTokenRow, DashboardSessionRow, SignInThrottleRow } from './infrastructure/orm-entities';
import { AccountRowsVersion } from './infrastructure/account-rows-version';
import { ScryptPasswordHasher } from './infrastructure/scrypt-password-hasher';
import { TypeOrmAccountRepository } from './infrastructure/typeorm-account.repository';
import { TypeOrmApiTokenRepository } from './infrastructure/typeorm-api-token.repository';
import { TypeOrmCredentialRepository } from './infrastructure/typeorm-credential.repository';
import { TypeOrmSessionRepository } from './infrastructure/typeorm-session.repository';
import { TypeOrmSignInThrottleRepository } from './infrastructure/typeorm-sign-in-throttle.repository';

const persistence = [TypeOrmModule.forFeature([AccountRow, ApiTokenRow, DashboardSessionRow, SignInThrottleRow])];

const core = [
  { provide: AccountRepository, useClass: TypeOrmAccountRepository },
  { provide: ApiTokenRepository, useClass: TypeOrmApiTokenRepository },
  { provide: CredentialRepository, useClass: TypeOrmCredentialRepository },
  { provide: SessionRepository, useClass: TypeOrmSessionRepository },
  { provide: PasswordHasher, useClass: ScryptPasswordHasher },
  AccountsService,
  AccountRowsVersion,
];

/** Accounts & Tokens: accounts, plans, subscriptions, SHA-256-hashed API tokens, dashboard sign-in. */
@Module({
  imports: persistence,
  controllers: [TestConnectionController],
  providers: [...core, { provide: SignInThrottleRepository, useClass: TypeOrmSignInThrottleRepository }, Authenticator, SignInService],
  exports: [AccountsService, Authenticator, AccountRepository, SignInService],
})
export class AccountsModule {}

/** The same context without HTTP, for the operator CLI. */
@Module({ imports: persistence, providers: core, exports: [AccountsService] })
export class AccountsCoreModule {}
