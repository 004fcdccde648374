import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { JobDispatcher } from './application/job-dispatcher';
import { JobKinds } from './application/job-kinds';
import { JobRepository } from './application/ports';
import { JobsService } from './application/jobs.service';
import { JobsController } from './http/jobs.controller';
import { JobRow } from './infrastructure/job.row';
import { TypeOrmJobRepository } from './infrastructure/typeorm-job.repository';

/**
 * The job lifecycle, whatever the job does: the jobs table, claims and leases, attempts and their fencing,
 * retry or failure, the dispatcher and the sweep for lost jobs, long-poll waiting. The transport (Bull or
 * in-process) and the "job ended" signal are ports here, implemented in adapters/queue. What a job does is
 * its kind's business: a provider of another context marked @HandlesJobs(kind) declares the kind (name, label,
 * time limit, events; application/job-kinds.ts) and runs its jobs (captures: screenshots, scenario runs: scenarios,
 * renders: renders), one per kind, checked when the app boots; JobKinds is the registry everyone reads. GET /jobs and GET /jobs/{id} (with long-poll) are
 * generic too, so they live here (http/); asking for a capture or a run stays with its context.
 */
@Module({
  imports: [TypeOrmModule.forFeature([JobRow]), DiscoveryModule],
  controllers: [JobsController],
  providers: [{ provide: JobRepository, useClass: TypeOrmJobRepository }, JobKinds, JobDispatcher, JobsService],
  exports: [JobRepository, JobsService, JobKinds],
})
export class JobsModule {}
