import { randomBytes } from 'node:crypto';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';
import { AppConfig, loadConfig } from '../../src/config/app-config';
import { configureHttpApp, createFastifyAdapter, HTTP_APP_OPTIONS } from '../../src/http-app';
import { AccountsService } from '../../src/modules/accounts/application/accounts.service';
import { Clock } from '../../src/shared/domain/clock';
import { FakeClock } from './fake-clock';
import { createTestDatabase, TestDatabase } from './test-database';

export interface TestAccount {
  id: number;
  email: string;
  token: string;
  auth: { Authorization: string };
}

export interface TestApp {
  app: NestFastifyApplication;
  url: string;
  clock: FakeClock;
  config: AppConfig;
  database: TestDatabase;
  createAccount(opts?: { plan?: string; status?: string; expiresAt?: Date | null; name?: string; email?: string }): Promise<TestAccount>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  /** Reuse another app's database (several instances of one deployment). */
  database?: TestDatabase;
  /** Share rate-limit counters / queues with another app on the same Redis. */
  redisKeyPrefix?: string;
}

let counter = 0;
const running = new Map<string, NestFastifyApplication>();

/** The app behind a base URL, when it runs in this test process. */
export function appServing(url: string): NestFastifyApplication | undefined {
  return running.get(url);
}

/** Boots the real AppModule on a real port with a fresh database and a controllable clock. */
export async function startTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const ownsDatabase = !options.database;
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ALLOW_PRIVATE_NETWORKS: 'true',
    DATA_DIR: database.dataDir,
    DATABASE_URL: database.databaseUrl ?? '',
    REDIS_KEY_PREFIX: options.redisKeyPrefix ?? `sss-test-${randomBytes(6).toString('hex')}`,
    HOST: '127.0.0.1',
    PORT: '0',
    ...options.env,
  });
  const clock = new FakeClock();
  const moduleRef = await Test.createTestingModule({ imports: [AppModule.register(config)] })
    .overrideProvider(Clock)
    .useValue(clock)
    .compile();
  const app = moduleRef.createNestApplication<NestFastifyApplication>(createFastifyAdapter(config), { ...HTTP_APP_OPTIONS, logger: false });
  configureHttpApp(app);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const accounts = app.get(AccountsService);
  running.set(url, app);

  return {
    app,
    url,
    clock,
    config,
    database,
    async createAccount(opts = {}) {
      counter += 1;
      const email = opts.email ?? `user${counter}-${randomBytes(4).toString('hex')}@example.com`;
      const { account, token } = await accounts.createAccount({
        email,
        name: opts.name ?? `User ${counter}`,
        plan: opts.plan ?? 'pro',
        status: opts.status ?? 'active',
        expiresAt: opts.expiresAt ?? null,
      });
      return { id: account.id, email, token, auth: { Authorization: `Bearer ${token}` } };
    },
    async close() {
      running.delete(url);
      await app.close();
      if (ownsDatabase) await database.drop();
    },
  };
}
