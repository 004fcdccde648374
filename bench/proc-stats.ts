/**
 * CPU time and memory of a process tree, read from /proc: the root process and every descendant (Chromium's
 * wrapper script, browser, zygotes, renderers, GPU and utility processes). CPU counts what the processes used
 * themselves and what their children used before they exited and were reaped (cutime/cstime), so a renderer
 * that lived for one capture is still counted once its parent has waited for it, and a browser recycled by the
 * service is counted in full.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const PAGE_SIZE = Number(execFileSync('getconf', ['PAGESIZE']).toString().trim()) || 4096;

interface ProcEntry {
  ppid: number;
  /** Its own user + system time. */
  ownTicks: number;
  /** Its own, plus its reaped children's (cutime + cstime). */
  cpuTicks: number;
  rssPages: number;
}

function readAll(): Map<number, ProcEntry> {
  const all = new Map<number, ProcEntry>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the command name, which may itself contain spaces and parentheses: f[1] is ppid,
      // f[11..14] utime, stime, cutime, cstime, f[21] rss in pages.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ownTicks = Number(f[11]) + Number(f[12]);
      all.set(Number(name), { ppid: Number(f[1]), ownTicks, cpuTicks: ownTicks + Number(f[13]) + Number(f[14]), rssPages: Number(f[21]) });
    } catch {
      // The process exited while we looked.
    }
  }
  return all;
}

function descendants(rootPid: number, all: Map<number, ProcEntry>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, entry] of all) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), pid]);
  const tree: number[] = [];
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    if (all.has(pid)) tree.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** The root and all its descendants alive now (to kill a whole tree: Chromium may outlive a killed parent briefly). */
export function treePids(rootPid: number): number[] {
  return descendants(rootPid, readAll());
}

export interface TreeStats {
  cpuMs: number;
  rssBytes: number;
}

export function treeStats(rootPid: number): TreeStats {
  const all = readAll();
  let ticks = 0;
  let pages = 0;
  for (const pid of descendants(rootPid, all)) {
    const entry = all.get(pid) as ProcEntry;
    ticks += entry.cpuTicks;
    pages += entry.rssPages;
  }
  return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssBytes: pages * PAGE_SIZE };
}

/**
 * Samples the tree every 100 ms until stopped, from a process outside it (the bench itself: each sample reads all of
 * /proc, a millisecond or two of CPU that must not be charged to the runner being measured): its peak RSS, and the
 * CPU its processes used meanwhile — each process's own time, from its first sample (or from 0 when it started after
 * the first) to its last. Reaped children's time (cutime) is not used: when a recycled browser's process group is
 * killed, nobody in the tree reaps its processes and their time would vanish from a total (seen as a negative CPU
 * per capture), while when the browser exits gracefully it is reaped and would be counted twice. What this misses is
 * a process's last < 100 ms before it exits, and processes that live less than 100 ms; both runners lose the same.
 */
export function treeMeter(rootPid: number): { stop(): { cpuMs: number; peakRssBytes: number; cpuMsByKind: Record<ProcessKind, number> } } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const kinds = new Map<number, ProcessKind>();
  let peak = 0;
  let initial = true;
  const sample = (): void => {
    const all = readAll();
    let pages = 0;
    for (const pid of descendants(rootPid, all)) {
      const entry = all.get(pid) as ProcEntry;
      if (!first.has(pid)) {
        first.set(pid, initial ? entry.ownTicks : 0);
        kinds.set(pid, pid === rootPid ? 'node' : processKind(pid));
      }
      last.set(pid, entry.ownTicks);
      pages += entry.rssPages;
    }
    initial = false;
    peak = Math.max(peak, pages * PAGE_SIZE);
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      sample();
      let ticks = 0;
      const cpuMsByKind: Record<ProcessKind, number> = { node: 0, browser: 0, renderer: 0, gpu: 0, network: 0, other: 0 };
      for (const [pid, ticksAtEnd] of last) {
        const used = ticksAtEnd - (first.get(pid) ?? 0);
        ticks += used;
        cpuMsByKind[kinds.get(pid) ?? 'other'] += (used * 1000) / TICKS_PER_SECOND;
      }
      return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, peakRssBytes: peak, cpuMsByKind };
    },
  };
}

/**
 * Where a process's CPU goes: the runner's node, Chromium's browser process, its renderers, its GPU process, its
 * network service, the rest (zygotes, the launcher script, other utilities).
 */
export type ProcessKind = 'node' | 'browser' | 'renderer' | 'gpu' | 'network' | 'other';

function processKind(pid: number): ProcessKind {
  let args: string[];
  try {
    // Chromium rewrites its processes' titles into one string of space-separated arguments.
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
  } catch {
    return 'other';
  }
  if (!/chrom/i.test(args[0] ?? '')) return 'other';
  const type = args.find((arg) => arg.startsWith('--type='))?.slice('--type='.length);
  if (type === undefined) return 'browser';
  if (type === 'renderer') return 'renderer';
  if (type === 'gpu-process') return 'gpu';
  if (args.includes('--utility-sub-type=network.mojom.NetworkService')) return 'network';
  return 'other';
}

export function perCapture(byKind: Record<ProcessKind, number>, captures: number): Record<ProcessKind, number> {
  return Object.fromEntries(Object.entries(byKind).map(([kind, ms]) => [kind, ms / captures])) as Record<ProcessKind, number>;
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}
