/**
 * Proxy pools (API.md fourth round, "Proxies"): an account's named list of upstream proxies and how a capture picks
 * one. The rules here are plain: the rotation's first choice, the order the others are tried in, and the cool-down
 * of a proxy that failed to connect. The URLs are secrets (sealed at rest, shown masked).
 */
import { maskProxyUrl } from '../../../shared/domain/proxy-url';

export const ROTATIONS = ['round_robin', 'random', 'sticky'] as const;
export type Rotation = (typeof ROTATIONS)[number];

export const PROXY_POOL_LIMITS = { nameMax: 100, proxies: 100, perAccount: 50 } as const;

/** How long a proxy that failed to connect is passed over (others first) before it is tried again. */
export const COOL_DOWN_MS = 60_000;
/** At most this many proxies of a pool are tried for one capture before it fails `proxy_failed`. */
export const MAX_PROXIES_TRIED = 3;

export interface ProxyPoolProps {
  id: number;
  accountId: number;
  name: string;
  /** The proxy URLs, credentials included (plain in the domain; sealed wherever stored). */
  proxies: string[];
  rotation: Rotation;
  createdAt: Date;
  updatedAt: Date;
}

/** The pool's proxies as people see them: credentials masked. */
export function maskedProxies(pool: Pick<ProxyPoolProps, 'proxies'>): string[] {
  return pool.proxies.map(maskProxyUrl);
}

/** What the rotation's first choice depends on. */
export interface RotationState {
  /** round_robin: how many captures this pool has served (in this process). */
  turn: number;
  /** sticky: the website the capture is for (null: a capture without one starts at the first). */
  websiteId: number | null;
  /** random: a number in [0, 1). */
  random: number;
}

/** FNV-1a of the website id: sticky spreads websites over the pool, each always on the same proxy. */
function stickyIndex(websiteId: number, size: number): number {
  let hash = 0x811c9dc5;
  for (const ch of String(websiteId)) {
    hash ^= ch.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % size;
}

export function firstChoice(rotation: Rotation, size: number, state: RotationState): number {
  if (size <= 1) return 0;
  switch (rotation) {
    case 'round_robin':
      return state.turn % size;
    case 'random':
      return Math.min(size - 1, Math.floor(state.random * size));
    case 'sticky':
      return state.websiteId === null ? 0 : stickyIndex(state.websiteId, size);
  }
}

/**
 * The order a capture tries the pool's proxies in (indices, at most MAX_PROXIES_TRIED): from the rotation's
 * choice onwards, wrapping; proxies still cooling down (`coolingUntil` > now) after all others. When every proxy
 * is cooling down they are tried all the same (in that order): a pool is never left unused because all failed once.
 */
export function tryOrder(rotation: Rotation, size: number, state: RotationState, coolingUntil: (index: number) => number, now: number): number[] {
  const first = firstChoice(rotation, size, state);
  const ring = Array.from({ length: size }, (_, i) => (first + i) % size);
  const ready = ring.filter((i) => coolingUntil(i) <= now);
  const cooling = ring.filter((i) => coolingUntil(i) > now);
  return [...ready, ...cooling].slice(0, MAX_PROXIES_TRIED);
}
