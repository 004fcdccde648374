import { DynamicModule, Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AppConfig } from './config/app-config';
import { Clock, SystemClock } from './shared/domain/clock';
import { dataSourceOptions, runMigrations } from './shared/persistence/data-source-options';
import { RedisConnection } from './shared/redis/redis-connection';
import { UrlPolicy } from './shared/url-policy';
import { loadSecretsKey, SecretBox } from './shared/secrets/secret-box';

/**
 * Process-wide infrastructure every context may use: configuration, the clock, the database (migrated
 * at start), the optional Redis connection and the URL policy.
 */
@Global()
@Module({})
export class CoreModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: CoreModule,
      imports: [
        TypeOrmModule.forRootAsync({
          useFactory: () => ({ ...dataSourceOptions(config), autoLoadEntities: true }),
          dataSourceFactory: async (options) => {
            const dataSource = await new DataSource(options!).initialize();
            await runMigrations(dataSource);
            return dataSource;
          },
        }),
      ],
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useClass: SystemClock },
        RedisConnection,
        // One URL policy for every entry point (websites, capture options, scenario steps) and the browser.
        { provide: UrlPolicy, useFactory: () => new UrlPolicy({ allowPrivateNetworks: config.allowPrivateNetworks, allowlist: config.urlAllowlist }) },
        // Secrets at rest (capture headers, cookies, credentials): one key per deployment.
        { provide: SecretBox, useFactory: () => new SecretBox(loadSecretsKey(config.secretsKey, config.dataDir)) },
      ],
      exports: [AppConfig, Clock, RedisConnection, UrlPolicy, SecretBox],
    };
  }
}
