import { Global, Module, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { BullJobTransport } from './bull-job-transport';
import { InProcessJobTransport } from './in-process-job-transport';
import { JobTransport } from '../../modules/jobs/application/job-transport';
import { InProcessJobEvents, RedisJobEvents } from './job-events';
import { JobEvents } from '../../modules/jobs/application/job-events';
import { planSlotCaps } from './slot-caps';

@Global()
@Module({
  providers: [
    {
      provide: JobTransport,
      // Bull on Redis when REDIS_URL is set (shared by api and worker processes), in-process otherwise.
      // Either way accounts are served round-robin within their plan's cap of slots (docs/fair-slots.md).
      useFactory: (config: AppConfig, moduleRef: ModuleRef): JobTransport =>
        config.redisUrl
          ? new BullJobTransport({
              redisUrl: config.redisUrl,
              keyPrefix: config.redisKeyPrefix,
              lockDurationMs: config.jobLockMs,
              slotCaps: planSlotCaps(moduleRef),
            })
          : new InProcessJobTransport(planSlotCaps(moduleRef)),
      inject: [AppConfig, ModuleRef],
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
export class QueueModule implements OnApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  /**
   * The last step of shutting down: by now the job dispatcher (JobDispatcher.onModuleDestroy, which runs before
   * any shutdown hook) has stopped taking jobs, given the running ones their grace and handed the rest back to
   * the queue, and the browsers have closed; only the connections are left.
   */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.moduleRef.get(JobTransport).close(), this.moduleRef.get(JobEvents).close()]);
  }
}
