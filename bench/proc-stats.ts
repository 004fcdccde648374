/**
 * CPU time and memory of a process tree, read from /proc: the root process and every descendant (Chromium's
 * browser, zygotes, renderers, GPU and utility processes). CPU counts what the processes used themselves and
 * what their children used before they exited and were reaped (cutime/cstime), so a renderer that lived for
 * one capture is still counted once its parent has waited for it.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_SECOND = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;

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
      // Fields after the command name, which may itself contain spaces and parentheses.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      all.set(Number(name), { ppid: Number(f[1]), cpuTicks: Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]), rssPages: Number(f[21]) });
    } catch {
      // The process exited while we looked.
    }
  }
  return all;
}

export interface TreeStats {
  cpuMs: number;
  rssBytes: number;
}

export function treeStats(rootPid: number): TreeStats {
  const all = readAll();
  const children = new Map<number, number[]>();
  for (const [pid, entry] of all) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), pid]);
  let ticks = 0;
  let pages = 0;
  const stack = [rootPid];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    const entry = all.get(pid);
    if (entry) {
      ticks += entry.cpuTicks;
      pages += entry.rssPages;
    }
    stack.push(...(children.get(pid) ?? []));
  }
  return { cpuMs: (ticks * 1000) / TICKS_PER_SECOND, rssBytes: pages * 4096 };
}

/** Samples the tree's RSS every 100 ms until stopped; returns the peak. */
export function peakRss(rootPid: number): { stop(): number } {
  let peak = treeStats(rootPid).rssBytes;
  const timer = setInterval(() => (peak = Math.max(peak, treeStats(rootPid).rssBytes)), 100);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, treeStats(rootPid).rssBytes);
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}
