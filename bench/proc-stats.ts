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
      all.set(Number(name), { ppid: Number(f[1]), cpuTicks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]), rssPages: Number(f[21]) });
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
 * Samples the tree every 100 ms until stopped: its peak RSS, and its CPU over the whole time, run from a process
 * outside the tree (the bench itself: each sample reads all of /proc, a millisecond or two of CPU that must not be
 * charged to the runner being measured).
 *
 * The CPU is the tree's total (own + reaped children's time of every live process) at the end minus at the start,
 * plus what left the tree without being reaped inside it: when a recycled browser's process group is killed, the
 * browser and its renderers die together, nobody in the tree waits for them, and their whole CPU time would vanish
 * from the total (seen in the bench as a negative CPU per capture). Such a process — gone, and its parent gone too —
 * is counted with its time at the last sample, at most 100 ms old.
 */
export function treeMeter(rootPid: number): { stop(): TreeStats & { peakRssBytes: number } } {
  const start = treeStats(rootPid);
  let peak = start.rssBytes;
  let orphanedTicks = 0;
  let seen = new Map<number, ProcEntry>();
  const sample = (): TreeStats => {
    const all = readAll();
    const now = new Map(descendants(rootPid, all).map((pid) => [pid, all.get(pid) as ProcEntry]));
    for (const [pid, entry] of seen) {
      if (!now.has(pid) && !now.has(entry.ppid)) orphanedTicks += entry.cpuTicks;
    }
    seen = now;
    let ticks = 0;
    let pages = 0;
    for (const entry of now.values()) {
      ticks += entry.cpuTicks;
      pages += entry.rssPages;
    }
    peak = Math.max(peak, pages * PAGE_SIZE);
    return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssBytes: pages * PAGE_SIZE };
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      const end = sample();
      return { cpuMs: end.cpuMs - start.cpuMs + (orphanedTicks * 1000) / TICKS_PER_SECOND, rssBytes: end.rssBytes, peakRssBytes: peak };
    },
  };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}
