import { Injectable, OnModuleInit, Optional, SetMetadata } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import { JOB_TYPES, JobPayload, JobProps, JobType } from '../domain/job';

/**
 * What an attempt's own writes did to its job, when the handler knows: ended it (`succeeded` / `failed`), or
 * nothing (`unchanged`: the write did not apply, another attempt or a delete got there first). The dispatcher
 * counts the outcome from it; a handler that returns nothing has the job read back instead (one more query).
 */
export type HandledOutcome = 'succeeded' | 'failed' | 'unchanged';

/**
 * Runs one claimed attempt of a job. Throws for an infrastructure failure (the dispatcher retries it). `P` is the
 * payload its job type carries: the handler's context types it, the jobs context never looks inside.
 */
export interface JobTypeHandler<P extends JobPayload = JobPayload> {
  handle(job: JobProps<P>): Promise<HandledOutcome | void>;
}

/** The outcome of a fenced write that would end the job: it ended it only when it applied. */
export function endedIf(applied: boolean, status: 'succeeded' | 'failed'): HandledOutcome {
  return applied ? status : 'unchanged';
}

const HANDLES_JOBS = 'jobs:handles';

/**
 * Marks a provider as the handler of one job type. Every type of JOB_TYPES needs exactly one: the app refuses
 * to start otherwise (JobHandlers.onModuleInit), so a forgotten or doubled handler is a boot error, not a job
 * that fails at run time.
 */
export const HandlesJobs = (type: JobType): ClassDecorator => SetMetadata(HANDLES_JOBS, type);

/** Thrown at boot when the handlers found do not cover JOB_TYPES exactly once each. */
export class JobHandlerWiringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobHandlerWiringError';
  }
}

/** The handler of each job type, collected from the providers marked @HandlesJobs. */
@Injectable()
export class JobHandlers implements OnModuleInit {
  private readonly byType = new Map<JobType, JobTypeHandler>();

  /** Without `discovery` (unit tests) nothing is collected at init: handlers are register()ed by hand. */
  constructor(@Optional() private readonly discovery?: DiscoveryService) {}

  onModuleInit(): void {
    if (!this.discovery) return;
    for (const wrapper of this.discovery.getProviders()) {
      const type = wrapper.metatype ? (Reflect.getMetadata(HANDLES_JOBS, wrapper.metatype) as JobType | undefined) : undefined;
      if (type === undefined) continue;
      if (!JOB_TYPES.includes(type)) throw new JobHandlerWiringError(`${wrapper.name} handles jobs of an unknown type "${type}"`);
      this.register(type, wrapper.instance as JobTypeHandler, String(wrapper.name));
    }
    const missing = JOB_TYPES.filter((type) => !this.byType.has(type));
    if (missing.length > 0) {
      throw new JobHandlerWiringError(`no provider handles jobs of type ${missing.join(', ')}: mark one with @HandlesJobs() and register it in a module`);
    }
  }

  /** Null for a type without a handler (a row written by another version of the service). */
  handlerFor(type: JobType): JobTypeHandler | null {
    return this.byType.get(type) ?? null;
  }

  register(type: JobType, handler: JobTypeHandler, name = 'a handler'): void {
    if (this.byType.has(type)) throw new JobHandlerWiringError(`two providers handle jobs of type ${type} (the second is ${name})`);
    this.byType.set(type, handler);
  }
}
