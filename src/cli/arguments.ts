/** Minimal `--flag value` parser for the operator CLI: strict, so a typo is an error rather than ignored. */
export class UsageError extends Error {}

export interface ParsedArgs {
  command: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[], booleanFlags: readonly string[] = []): ParsedArgs {
  const command: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith('--')) {
      if (flags.size > 0) throw new UsageError(`unexpected argument "${arg}"`);
      command.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (flags.has(name)) throw new UsageError(`--${name} given twice`);
    if (booleanFlags.includes(name)) {
      flags.set(name, true);
    } else if (inline !== undefined) {
      flags.set(name, inline);
    } else {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      flags.set(name, value);
      i++;
    }
  }
  return { command, flags };
}

export class FlagReader {
  private readonly used = new Set<string>();

  constructor(private readonly flags: Map<string, string | true>) {}

  required(name: string): string {
    const value = this.optional(name);
    if (value === undefined) throw new UsageError(`--${name} is required`);
    return value;
  }

  optional(name: string): string | undefined {
    this.used.add(name);
    const value = this.flags.get(name);
    if (value === true) throw new UsageError(`--${name} needs a value`);
    return value;
  }

  has(name: string): boolean {
    this.used.add(name);
    return this.flags.has(name);
  }

  integer(name: string): number | undefined {
    const raw = this.optional(name);
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw)) throw new UsageError(`--${name} must be a positive integer`);
    return Number(raw);
  }

  date(name: string): Date | null | undefined {
    const raw = this.optional(name);
    if (raw === undefined) return undefined;
    if (raw === 'none' || raw === '') return null;
    const date = new Date(raw);
    if (!/^\d{4}-\d{2}-\d{2}/.test(raw) || Number.isNaN(date.getTime())) throw new UsageError(`--${name} must be an ISO 8601 date-time (or "none")`);
    return date;
  }

  /** Rejects flags the command does not know. */
  done(): void {
    for (const name of this.flags.keys()) if (!this.used.has(name)) throw new UsageError(`unknown option --${name}`);
  }
}
