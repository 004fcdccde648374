import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { Clock } from '../../../shared/domain/clock';
import { bypassesProxy, maskProxyUrl, parseProxyUrl, type ProxyUrl } from '../../../shared/domain/proxy-url';
import { Metrics } from '../../../shared/metrics/metrics';
import { COOL_DOWN_MS, tryOrder, type ProxyPoolProps } from '../domain/proxy-pool';
import { ProxyPoolsService } from './proxy-pools.service';

/** What a capture asked for: the proxy named in its options (request over website), a pool's name, or neither. */
export interface ProxyChoice {
  accountId: number;
  websiteId: number | null;
  /** The page's URL (CAPTURE_PROXY_BYPASS matches its host). */
  url: string;
  proxy?: string;
  pool?: string;
}

/** One proxy to try; `pool` set when it came from a pool (its outcome is then reported back). */
export interface ProxyCandidate {
  proxy: ProxyUrl;
  masked: string;
  pool: { id: number; index: number } | null;
}

/** A pool the capture named does not exist (any more): the capture fails in words. */
export class UnknownProxyPoolError extends Error {}

/**
 * Turns a capture's choice into the proxies to try, in order, and learns from their outcomes: a pool's proxy that
 * failed to connect cools down (tried after the others for COOL_DOWN_MS). The capture port only ever gets a
 * resolved proxy. The rotation counters and cool-downs are this process's own (each worker learns for itself).
 */
@Injectable()
export class ProxyRouter {
  private readonly turns = new Map<number, number>();
  /** `poolId:url` → epoch ms until which that proxy is passed over. */
  private readonly cooling = new Map<string, number>();

  constructor(
    private readonly pools: ProxyPoolsService,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly metrics: Metrics,
  ) {}

  /** [] when the capture goes straight out. */
  async candidates(choice: ProxyChoice): Promise<ProxyCandidate[]> {
    if (choice.proxy !== undefined) return this.single(choice.proxy);
    if (choice.pool !== undefined) {
      const pool = await this.pools.findByName(choice.accountId, choice.pool);
      if (!pool) throw new UnknownProxyPoolError(`The proxy pool '${choice.pool}' does not exist`);
      return this.fromPool(pool, choice.websiteId);
    }
    const fallback = this.config.captureProxy;
    if (!fallback) return [];
    let host: string;
    try {
      host = new URL(choice.url).hostname;
    } catch {
      return [];
    }
    return bypassesProxy(host, this.config.captureProxyBypass) ? [] : this.single(fallback);
  }

  succeeded(candidate: ProxyCandidate): void {
    if (!candidate.pool) return;
    this.cooling.delete(this.key(candidate.pool.id, candidate.masked, candidate.pool.index));
    this.metrics.proxyPoolUsed(candidate.pool.id, 'success');
  }

  /** The proxy itself failed (could not be reached, refused its credentials): passed over for a cool-down. */
  failed(candidate: ProxyCandidate): void {
    if (!candidate.pool) return;
    this.cooling.set(this.key(candidate.pool.id, candidate.masked, candidate.pool.index), this.clock.now().getTime() + COOL_DOWN_MS);
    this.metrics.proxyPoolUsed(candidate.pool.id, 'failure');
  }

  private single(url: string): ProxyCandidate[] {
    const proxy = parseProxyUrl(url);
    return proxy ? [{ proxy, masked: maskProxyUrl(url), pool: null }] : [];
  }

  private fromPool(pool: ProxyPoolProps, websiteId: number | null): ProxyCandidate[] {
    const turn = this.turns.get(pool.id) ?? 0;
    this.turns.set(pool.id, turn + 1);
    const now = this.clock.now().getTime();
    const order = tryOrder(
      pool.rotation,
      pool.proxies.length,
      { turn, websiteId, random: Math.random() },
      (index) => this.cooling.get(this.key(pool.id, maskProxyUrl(pool.proxies[index]), index)) ?? 0,
      now,
    );
    return order.flatMap((index) => {
      const proxy = parseProxyUrl(pool.proxies[index]);
      return proxy ? [{ proxy, masked: maskProxyUrl(pool.proxies[index]), pool: { id: pool.id, index } }] : [];
    });
  }

  /** Keyed by position and masked URL, so a cool-down never outlives an edit that replaced the proxy. */
  private key(poolId: number, masked: string, index: number): string {
    return `${poolId}:${index}:${masked}`;
  }
}
