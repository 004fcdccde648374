/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for tests: every line must be a HELP or
 * TYPE comment, a sample of a family declared before it, or blank — anything else throws, and so does a
 * family declared twice or a series that appears twice.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: string;
  help: string;
  samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
/** Sample names a family of each type may have, beyond its own name. */
const SUFFIXES: Record<string, string[]> = { histogram: ['_bucket', '_sum', '_count'], summary: ['_sum', '_count'] };

/** Values as Prometheus reads them (Go's ParseFloat): `NaN`, `+Inf` and `-Inf` in any letter case (prom-client writes `Nan`). */
function parseValue(raw: string, line: string): number {
  const special = raw.toLowerCase();
  if (special === 'nan') return NaN;
  if (['+inf', 'inf', '+infinity', 'infinity'].includes(special)) return Infinity;
  if (['-inf', '-infinity'].includes(special)) return -Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(raw)) throw new Error(`not a number: ${JSON.stringify(raw)} in ${JSON.stringify(line)}`);
  return Number(raw);
}

function parseLabels(raw: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  const pattern = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"\s*(,|$)/y;
  let at = 0;
  while (at < raw.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(raw);
    if (!match) throw new Error(`malformed labels in ${JSON.stringify(line)}`);
    if (match[1] in labels) throw new Error(`label ${match[1]} twice in ${JSON.stringify(line)}`);
    labels[match[1]] = match[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    at = pattern.lastIndex;
  }
  return labels;
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const series = new Set<string>();
  const familyOf = (sampleName: string): MetricFamily | undefined => {
    const own = families.get(sampleName);
    if (own) return own;
    for (const family of families.values()) {
      if ((SUFFIXES[family.type] ?? []).some((suffix) => sampleName === family.name + suffix)) return family;
    }
    return undefined;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
    if (help) {
      const family = families.get(help[1]) ?? { name: help[1], type: 'untyped', help: '', samples: [] };
      family.help = help[2];
      families.set(help[1], family);
      continue;
    }
    const type = new RegExp(`^# TYPE (${NAME}) (\\w+)$`).exec(line);
    if (type) {
      if (!TYPES.includes(type[2])) throw new Error(`unknown type in ${JSON.stringify(line)}`);
      const family = families.get(type[1]);
      if (family && (family.type !== 'untyped' || family.samples.length > 0)) throw new Error(`${type[1]} declared twice`);
      families.set(type[1], { name: type[1], help: family?.help ?? '', samples: [], type: type[2] });
      continue;
    }
    if (line.startsWith('#')) continue;
    const sample = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`).exec(line);
    if (!sample) throw new Error(`not a sample: ${JSON.stringify(line)}`);
    const family = familyOf(sample[1]);
    if (!family) throw new Error(`sample of an undeclared family: ${JSON.stringify(line)}`);
    const labels = parseLabels(sample[2] ?? '', line);
    const key = `${sample[1]}{${Object.keys(labels)
      .sort()
      .map((k) => `${k}=${JSON.stringify(labels[k])}`)
      .join(',')}}`;
    if (series.has(key)) throw new Error(`series twice: ${key}`);
    series.add(key);
    family.samples.push({ name: sample[1], labels, value: parseValue(sample[3], line) });
  }
  return families;
}

/** The value of the one sample named `name` whose labels include `labels`; undefined when there is none. */
export function sampleValue(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number | undefined {
  const matches = [...families.values()]
    .flatMap((family) => family.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0]?.value;
}
