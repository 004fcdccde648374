import { ModuleRef } from '@nestjs/core';
import { AccountRepository } from '../../modules/accounts/application/ports';
import { planCaptureSlots } from '../../modules/accounts/domain/plan';
import { SlotCaps } from '../../modules/jobs/application/job-transport';

/** A plan change reaches the workers within this long; meanwhile a delivery costs no account read. */
const CAP_CACHE_MS = 60_000;

/** The cap of an account that is gone (its jobs are about to fail anyway): one slot. */
const UNKNOWN_ACCOUNT_CAP = 1;

/**
 * Each account's cap on simultaneous jobs, from its plan (accounts/domain/plan.ts), cached per process. The
 * account repository is looked up when first needed: the queue module is global and built before the contexts.
 */
export function planSlotCaps(moduleRef: ModuleRef): SlotCaps {
  const cache = new Map<number, { cap: number; until: number }>();
  return async (accountId) => {
    const hit = cache.get(accountId);
    if (hit && hit.until > Date.now()) return hit.cap;
    const account = await moduleRef.get(AccountRepository, { strict: false }).findById(accountId);
    const cap = account ? planCaptureSlots(account.plan) : UNKNOWN_ACCOUNT_CAP;
    cache.set(accountId, { cap, until: Date.now() + CAP_CACHE_MS });
    return cap;
  };
}
