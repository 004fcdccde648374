import { Global, Module, BeforeApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { AppConfig } from '../../config/app-config';
import { BullJobTransport } from './bull-job-transport';
import { InProcessJobTransport } from './in-process-job-transport';
import { JobTransport } from './job-transport.port';

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
  ],
  exports: [JobTransport],
})
export class QueueModule implements BeforeApplicationShutdown {
  constructor(private readonly moduleRef: ModuleRef) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.moduleRef.get(JobTransport).close();
  }
}
