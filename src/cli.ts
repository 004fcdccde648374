import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FlagReader, parseArgs, UsageError } from './cli/arguments';
import { BOOLEAN_FLAGS, runCommand, USAGE } from './cli/commands';
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

/** Operator CLI (`npm run cli -- …`): prints one JSON line; bad arguments → one line on stderr, exit 2. */
async function main(argv: string[]): Promise<number> {
  let app;
  try {
    const { command, flags } = parseArgs(argv, BOOLEAN_FLAGS);
    if (command.length === 0 || command[0] === 'help' || flags.has('help')) {
      process.stdout.write(`${USAGE}\n`);
      return command.length === 0 && !flags.has('help') ? 2 : 0;
    }
    const config = loadConfig(process.env);
    @Module({ imports: [CoreModule.register(config), AccountsCoreModule] })
    class CliModule {}
    app = await NestFactory.createApplicationContext(CliModule, { logger: false });
    const result = await runCommand(command, new FlagReader(flags), app.get(AccountsService), readStdin);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 2;
    }
    if (err instanceof DomainError) {
      const details = (err.extra.details as { message: string }[] | undefined)?.map((d) => d.message).join('; ');
      process.stderr.write(`error: ${details || err.message}\n`);
      return 2;
    }
    process.stderr.write(`error: ${errorMessage(err)}\n`);
    return 1;
  } finally {
    await app?.close();
  }
}

void main(process.argv.slice(2)).then((code) => process.exit(code));
