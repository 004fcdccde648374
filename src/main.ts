import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module';
import { ConfigError, loadConfig } from './config/app-config';
import { checkStorageDir, StorageDirUnusableError } from './modules/screenshots/infrastructure/local-disk-storage';
import { checkS3Bucket, S3StorageUnusableError } from './modules/screenshots/infrastructure/s3-storage';
import { errorMessage } from './shared/domain/error-message';
import { configureHttpApp, createFastifyAdapter, HTTP_APP_OPTIONS } from './http-app';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  try {
    if (config.s3) await checkS3Bucket(config.s3);
    else checkStorageDir(config.storageDir);
  } catch (err) {
    if (!(err instanceof StorageDirUnusableError || err instanceof S3StorageUnusableError)) throw err;
    process.stderr.write(`configuration error: ${err.message}\n`);
    process.exit(2);
  }
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.register(config), createFastifyAdapter(config), {
    ...HTTP_APP_OPTIONS,
    bufferLogs: true,
  });
  configureHttpApp(app);
  await app.listen(config.port, config.host);
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  process.stdout.write(
    `screenshot service listening on http://${shown}:${port} (role ${config.role}, ${config.databaseUrl ? 'PostgreSQL' : 'SQLite'}${config.redisUrl ? ' + Redis' : ''})\n`,
  );
}

main().catch((err: unknown) => {
  process.stderr.write(`failed to start: ${errorMessage(err)}\n`);
  process.exit(1);
});
