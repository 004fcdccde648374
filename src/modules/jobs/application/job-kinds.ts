import { Injectable, OnModuleInit, Optional, SetMetadata } from '@nestjs/common';
import { DiscoveryService } from '@nestjs/core';
import type { AppConfig } from '../../../config/app-config';
import { JobPayload, JobProps } from '../domain/job';

/**
 * What an attempt's own writes did to its job, when the handler knows: ended it (`succeeded` / `failed`), or
 * nothing (`unchanged`: the write did not apply, another attempt or a delete got there first). The dispatcher
 * counts the outcome from it; a handler that returns nothing has the job read back instead (one more query).
 */
export type HandledOutcome = 'succeeded' | 'failed' | 'unchanged';

/**
 * Runs one claimed attempt of a job. Throws for an infrastructure failure (the dispatcher retries it). `P` is the
 * payload its job kind carries: the handler's context types it, the jobs context never looks inside.
 */
export interface JobTypeHandler<P extends JobPayload = JobPayload> {
  handle(job: JobProps<P>): Promise<HandledOutcome | void>;
}

/** The outcome of a fenced write that would end the job: it ended it only when it applied. */
export function endedIf(applied: boolean, status: 'succeeded' | 'failed'): HandledOutcome {
  return applied ? status : 'unchanged';
}

/**
 * Everything the service needs to know about one kind of job, declared by the context that owns it (next to its
 * runner) and read by everyone else from here: the jobs context (time limit → lease, idempotency), webhooks (its
 * events), the dashboard (its label), metrics (its series). See docs/architecture.md "How to add a job kind".
 * `P` is the payload the kind's jobs carry (its runner is a JobTypeHandler<P>).
 */
export interface JobKind<P extends JobPayload = JobPayload> {
  /** The jobs table's `type` and the API's Job `type`: lowercase, stable (rows outlive versions). */
  readonly name: string;
  /** How the dashboard names one such job ("scenario run"). */
  readonly label: string;
  /**
   * The longest one attempt can legitimately run under these settings. An attempt that started longer ago than
   * this plus LEASE_MARGIN_MS is presumed dead (job-lease.ts) and taken over.
   */
  maxRunMs(config: AppConfig): number;
  /**
   * The webhook and notification-channel events its jobs emit when they end, by outcome (names among the
   * webhooks' events); null: none (a render's client is waiting for its answer, nobody needs telling).
   */
  readonly events: { readonly succeeded: string; readonly failed: string } | null;
  /**
   * Idempotency: whether a request reusing an Idempotency-Key must carry the same payload to be the same request
   * (default true). False when the payload is a snapshot taken at submission (a scenario run's steps).
   */
  readonly samePayloadOnRetry?: boolean;
  /** Type only: ties the kind to its payload. */
  readonly payload?: P;
}

/** Thrown when kinds or their runners are wired wrong: at import (two kinds of one name) or at boot. */
export class JobHandlerWiringError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JobHandlerWiringError';
  }
}

/**
 * The kinds declared so far, in declaration order: filled when each runner's class is defined (@HandlesJobs), so
 * before any provider is made — the OpenAPI document (built without instantiating providers) lists them too.
 */
const declared = new Map<string, JobKind>();
/** The names of the declared kinds, one live array: the Job schema's `type` enum (jobs/http/openapi.ts). */
export const JOB_KIND_NAMES: string[] = [];

const NAME = /^[a-z][a-z0-9_]{0,31}$/;

/** Declares a kind (HandlesJobs does it for its runner); declaring one object twice is a no-op, two of one name an error. */
export function declareJobKind(kind: JobKind): void {
  if (!NAME.test(kind.name)) throw new JobHandlerWiringError(`job kind "${kind.name}": a name is lowercase letters, digits and _ (at most 32)`);
  const known = declared.get(kind.name);
  if (known && known !== kind) throw new JobHandlerWiringError(`two job kinds are named "${kind.name}"`);
  if (known) return;
  declared.set(kind.name, kind);
  JOB_KIND_NAMES.push(kind.name);
}

const HANDLES_JOBS = 'jobs:handles';

/**
 * Marks a provider as the runner of one job kind and declares the kind: the one registration line of a kind
 * (plus listing the runner among its module's providers). Every declared kind needs exactly one such provider:
 * the app refuses to start otherwise (JobKinds.onModuleInit), so a forgotten or doubled runner is a boot error,
 * not a job that fails at run time.
 */
export function HandlesJobs<P extends JobPayload>(kind: JobKind<P>): ClassDecorator {
  declareJobKind(kind);
  return SetMetadata(HANDLES_JOBS, kind.name);
}

/**
 * The registry of job kinds: each declared kind with its runner, collected from the providers marked
 * @HandlesJobs and checked at boot. Read by the dispatcher (routing, leases), JobsService (idempotency),
 * webhooks (events), the dashboard (labels, filters) and metrics.
 */
@Injectable()
export class JobKinds implements OnModuleInit {
  private readonly runners = new Map<string, JobTypeHandler>();

  /** Without `discovery` (unit tests) nothing is collected at init: runners are register()ed by hand. */
  constructor(@Optional() private readonly discovery?: DiscoveryService) {}

  onModuleInit(): void {
    if (!this.discovery) return;
    for (const wrapper of this.discovery.getProviders()) {
      const name = wrapper.metatype ? (Reflect.getMetadata(HANDLES_JOBS, wrapper.metatype) as string | undefined) : undefined;
      if (name === undefined) continue;
      this.register(declared.get(name)!, wrapper.instance as JobTypeHandler, String(wrapper.name));
    }
    const missing = this.all().filter((kind) => !this.runners.has(kind.name));
    if (missing.length > 0) {
      throw new JobHandlerWiringError(
        `no provider handles jobs of kind ${missing.map((k) => k.name).join(', ')}: list its @HandlesJobs runner among its module's providers`,
      );
    }
  }

  /** Every declared kind, in declaration order. */
  all(): JobKind[] {
    return [...declared.values()];
  }

  /** Null for a name no kind has (a row written by another version of the service). */
  kind(name: string): JobKind | null {
    return declared.get(name) ?? null;
  }

  /** Null for a kind without a runner (a row written by another version of the service). */
  handlerFor(name: string): JobTypeHandler | null {
    return this.runners.get(name) ?? null;
  }

  /** Declares `kind` (when not yet) and makes `handler` its runner. */
  register<P extends JobPayload>(kind: JobKind<P>, handler: JobTypeHandler<P>, name = 'a handler'): void {
    declareJobKind(kind);
    if (this.runners.has(kind.name)) throw new JobHandlerWiringError(`two providers handle jobs of kind ${kind.name} (the second is ${name})`);
    this.runners.set(kind.name, handler);
  }
}
