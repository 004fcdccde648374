import { Global, Module, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { BullJobTransport } from './bull-job-transport';
import { InProcessJobTransport } from './in-process-job-transport';
import { JobTransport } from '../../modules/jobs/application/job-transport';
import { InProcessJobEvents, RedisJobEvents } from './job-events';
import { JobEvents } from '../../modules/jobs/application/job-events';

@Global()
@Module({
  providers: [
    {
      provide: JobTransport,
      // Bull on Redis when REDIS_URL is set (shared by api and worker processes), in-process otherwise.
      useFactory: (config: AppConfig): JobTransport =>
        config.redisUrl
          ? new BullJobTransport({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, lockDurationMs: config.jobLockMs })
          : new InProcessJobTransport(),
      inject: [AppConfig],
    },
    {
      provide: JobEvents,
      // Redis pub/sub when REDIS_URL is set (a job ended by a worker wakes a long-poll on any API instance).
      useFactory: (config: AppConfig): JobEvents => (config.redisUrl ? new RedisJobEvents(config.redisUrl, config.redisKeyPrefix) : new InProcessJobEvents()),
      inject: [AppConfig],
    },
  ],
  exports: [JobTransport, JobEvents],
})
export class QueueModule implements OnModuleDestroy, OnApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  /**
   * The first step of shutting down (Nest runs every onModuleDestroy before any beforeApplicationShutdown):
   * stop taking jobs and wait, bounded, for the running ones. The browser pool closes only after this
   * (PuppeteerPageCapturer.beforeApplicationShutdown) and the database after that (TypeORM closes in
   * onApplicationShutdown), so a job still being delivered never meets a closed pool and fails for it.
   */
  async onModuleDestroy(): Promise<void> {
    await this.moduleRef.get(JobTransport).close();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.moduleRef.get(JobEvents).close();
  }
}
