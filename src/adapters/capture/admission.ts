import { closeSync, openSync, readSync } from 'node:fs';
import { cpus, freemem, totalmem } from 'node:os';
import { CaptureFailure } from '../../modules/screenshots/application/capture.port';

/**
 * How busy the machine is, as the admission sees it. System-wide on purpose: Chromium's renderers, not this
 * Node process, do most of a capture's work, and other processes on the machine compete for the same cores.
 */
export interface LoadProbe {
  /** Share of all cores busy (0..1) since the previous call (or over the last moment, on the first one). */
  cpuBusy(): number;
  /** Bytes of memory still available to new processes. */
  availableMemory(): number;
}

/** /proc/stat-based CPU share between calls (os.cpus() reads it), and MemAvailable (os.freemem()). */
export class SystemLoad implements LoadProbe {
  private last = SystemLoad.sample();

  cpuBusy(): number {
    const now = SystemLoad.sample();
    const total = now.total - this.last.total;
    const idle = now.idle - this.last.idle;
    this.last = now;
    return total > 0 ? Math.min(1, Math.max(0, 1 - idle / total)) : 0;
  }

  availableMemory(): number {
    return freemem();
  }

  private static sample(): { total: number; idle: number } {
    return SystemLoad.procStat() ?? SystemLoad.perCore();
  }

  /**
   * The first line of /proc/stat ("cpu  user nice system idle iowait irq …", all cores summed) with the same
   * fields os.cpus() sums. os.cpus() reads every core's line and /proc/cpuinfo too: ~1 ms a call on the 2-core CI
   * machine under load against ~0.2 ms for these 256 bytes, and the admission reads it every 100 ms while captures
   * wait (docs/benchmark.md, "Where node's time goes"). Null where there is no /proc (not Linux).
   */
  private static procStat(): { total: number; idle: number } | null {
    let fd: number | undefined;
    try {
      fd = openSync('/proc/stat', 'r');
      const head = Buffer.alloc(256);
      const line = head.toString('latin1', 0, readSync(fd, head, 0, head.length, 0)).split('\n', 1)[0];
      const [label, user, nice, system, idle, , irq] = line.split(/\s+/);
      const fields = [user, nice, system, idle, irq].map(Number);
      if (label !== 'cpu' || !fields.every(Number.isFinite)) return null;
      return { total: fields.reduce((sum, value) => sum + value, 0), idle: fields[3] };
    } catch {
      return null;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }

  private static perCore(): { total: number; idle: number } {
    let total = 0;
    let idle = 0;
    for (const { times } of cpus()) {
      total += times.user + times.nice + times.sys + times.idle + times.irq;
      idle += times.idle;
    }
    return { total, idle };
  }
}

export interface AdmissionLimits {
  /** Admitted whatever the load (see FLOOR_PER_CORE): a lone capture never waits for a gauge. */
  floor: number;
  /** Never more at once (CAPTURE_CONCURRENCY, or the default cap). */
  cap: number;
  /** Above the floor, a capture is admitted only while the cores are less busy than this (0..1). */
  cpuTarget: number;
  /** … and while at least this much memory stays available (bytes). */
  memoryReserve: number;
  /**
   * Above the floor, at most one admission per this many ms: the load a capture adds shows only once its
   * page renders, so admitting a burst on one reading would overshoot.
   */
  stepMs: number;
}

/**
 * Captures admitted at once per core, whatever the load. A capture spends about half its time waiting (the
 * stability window, the network, the database), so one per core leaves the cores idle; three per core reach what
 * a fixed 16 reaches on 2 cores (figures: docs/benchmark.md).
 */
export const FLOOR_PER_CORE = 3;

/**
 * Defaults for this machine: the floor above, a CPU target just short of saturation (a lower one left throughput
 * unused; figures: docs/benchmark.md), the memory reserve 15 % (at least 512 MiB).
 */
export function defaultAdmissionLimits(cap: number, cores = cpus().length): AdmissionLimits {
  return {
    floor: Math.max(1, Math.min(cap, FLOOR_PER_CORE * cores)),
    cap,
    cpuTarget: 0.97,
    memoryReserve: Math.max(512 * 1024 * 1024, 0.15 * totalmem()),
    stepMs: 100,
  };
}

interface Waiter {
  grant: (release: () => void) => void;
  fail: (error: Error) => void;
}

/**
 * How many captures run at once, sized by the machine rather than a guess: up to `floor` are admitted at
 * once; above it, one more each `stepMs` while the cores are below `cpuTarget` and memory above
 * `memoryReserve`, never more than `cap`. Pages that mostly wait (network, timers, the stability window)
 * leave cores idle, so more of them run; pages that compute keep the cores busy, so fewer do. Waiters are
 * served first come, first served (a new arrival never overtakes a queued one).
 *
 * The surface the browser pool uses (acquire/waiting/inUse/close) is that of a semaphore.
 */
export class CaptureAdmission {
  private readonly queue: Waiter[] = [];
  private running = 0;
  private lastStepAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private closedWith: Error | null = null;

  constructor(
    readonly limits: AdmissionLimits,
    private readonly load: LoadProbe = new SystemLoad(),
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(limits.floor >= 1 && limits.cap >= limits.floor)) throw new Error(`admission needs 1 <= floor <= cap, got ${limits.floor} and ${limits.cap}`);
  }

  get waiting(): number {
    return this.queue.length;
  }

  get inUse(): number {
    return this.running;
  }

  /** Resolves with a release function once admitted; calling it more than once is harmless. */
  acquire(): Promise<() => void> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    return new Promise((grant, fail) => {
      this.queue.push({ grant, fail });
      this.pump();
    });
  }

  /** Fails every current and future waiter; captures already admitted keep their place until released. */
  close(error: Error = new CaptureFailure('infrastructure', 'Browser pool is shut down')): void {
    this.closedWith = error;
    this.stopTimer();
    for (const waiter of this.queue.splice(0)) waiter.fail(error);
  }

  private pump(): void {
    while (this.queue.length > 0 && this.mayAdmit()) {
      const waiter = this.queue.shift() as Waiter;
      this.running++;
      let released = false;
      waiter.grant(() => {
        if (released) return;
        released = true;
        this.running--;
        this.pump();
      });
    }
    // Someone waits above the floor: look at the gauges again shortly (the load may drop with nothing ending).
    if (this.queue.length > 0 && this.running < this.limits.cap) this.startTimer();
    else this.stopTimer();
  }

  private mayAdmit(): boolean {
    if (this.running < this.limits.floor) return true;
    if (this.running >= this.limits.cap) return false;
    const at = this.now();
    if (at - this.lastStepAt < this.limits.stepMs) return false;
    // Read once per step: cpuBusy() measures since its previous call, so reading it more often only shortens the window.
    const busy = this.load.cpuBusy();
    if (busy >= this.limits.cpuTarget || this.load.availableMemory() < this.limits.memoryReserve) {
      this.lastStepAt = at;
      return false;
    }
    this.lastStepAt = at;
    return true;
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.pump(), this.limits.stepMs);
    // Waiting captures keep the process busy anyway; an idle pool must not keep it alive.
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}
