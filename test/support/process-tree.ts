import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  rssBytes: number;
  zombie: boolean;
}

function readProcesses(): ProcessInfo[] {
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push({ pid: Number(entry), ppid: Number(fields[1]), rssBytes: Number(fields[21]) * 4096, zombie: fields[0] === 'Z' });
    } catch {
      /* exited while we looked */
    }
  }
  return out;
}

/** Live (non-zombie) descendants of `root` — for this test process, the Chromium processes it started. */
export function liveDescendants(root = process.pid): ProcessInfo[] {
  const all = readProcesses();
  const children = new Map<number, ProcessInfo[]>();
  for (const p of all) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const found: ProcessInfo[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const p = stack.pop() as ProcessInfo;
    if (!p.zombie) found.push(p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return found;
}
