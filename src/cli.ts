import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FlagReader, parseArgs, UsageError } from './cli/arguments';
import { BOOLEAN_FLAGS, createsDatabase, runCommand, USAGE } from './cli/commands';
import { DatabaseLocation, locateDatabase, missingDatabaseMessage } from './cli/database';
import { ConfigError, loadConfig } from './config/app-config';
import { CoreModule } from './core.module';
import { AccountsCoreModule } from './modules/accounts/accounts.module';
import { AccountsService } from './modules/accounts/application/accounts.service';
import { errorMessage } from './shared/domain/error-message';
import { DomainError } from './shared/domain/domain-error';

function readStdin(): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    process.stdin.on('data', (chunk: Buffer) => chunks.push(chunk));
    process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.on('error', reject);
  });
}

/**
 * Operator CLI (`npm run cli -- …`): prints one JSON line on stdout, and on stderr which database it opened (the
 * SQLite file or the PostgreSQL URL, password masked). A DATA_DIR / DATABASE_URL without the service's database is
 * refused (exit 2, with what to do) unless the command is `account create` or `--create` is given: a typo in the
 * path must not make a second database whose tokens the running server has never heard of.
 * Bad arguments → one line on stderr, exit 2.
 */
async function main(argv: string[]): Promise<number> {
  let app;
  let database: DatabaseLocation | undefined;
  let created = false;
  let succeeded = false;
  let refused = false;
  try {
    const { command, flags } = parseArgs(argv, BOOLEAN_FLAGS);
    if (command.length === 0 || command[0] === 'help' || flags.has('help')) {
      process.stdout.write(`${USAGE}\n`);
      return command.length === 0 && !flags.has('help') ? 2 : 0;
    }
    const config = loadConfig(process.env);
    const reader = new FlagReader(flags);
    const mayCreate = reader.has('create') || createsDatabase(command);
    database = await locateDatabase(config);
    if (!database.exists && !mayCreate) {
      refused = true;
      throw new UsageError(missingDatabaseMessage(database));
    }
    created = !database.exists;
    @Module({ imports: [CoreModule.register(config), AccountsCoreModule] })
    class CliModule {}
    app = await NestFactory.createApplicationContext(CliModule, { logger: false });
    const result = await runCommand(command, reader, app.get(AccountsService), readStdin);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.stderr.write(
      created
        ? `database: ${database.where} (new: created by this command; only a server run with this ${database.setting} will know what it made)\n`
        : `database: ${database.where}\n`,
    );
    succeeded = true;
    return 0;
  } catch (err) {
    // Once the database was chosen, the error names it: "not found" in the wrong database is the usual mistake.
    const from = database && !refused ? ` (database: ${database.where})` : '';
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}${from}\n`);
      return 2;
    }
    if (err instanceof DomainError) {
      const details = (err.extra.details as { message: string }[] | undefined)?.map((d) => d.message).join('; ');
      process.stderr.write(`error: ${details || err.message}${from}\n`);
      return 2;
    }
    process.stderr.write(`error: ${errorMessage(err)}${from}\n`);
    return 1;
  } finally {
    await app?.close();
    // Nothing half-made: a database this run created for a command that then failed is removed (SQLite).
    if (created && !succeeded) database?.discard();
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
