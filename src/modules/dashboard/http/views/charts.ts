import { Html, html } from './html';

/**
 * Bar charts drawn on the server as SVG: no script, no library, nothing the CSP would have to allow. Each chart
 * names itself (<title>, <desc>) for screen readers, and every bar carries its exact values as a tooltip.
 */

export interface ChartBar {
  /** The bar's label on the axis, when it is labelled (every few bars). */
  axisLabel: string | null;
  /** What the bar stands for, in full (its tooltip). */
  label: string;
  /** Stacked from the bottom: [value, css class]. */
  parts: Array<[number, string]>;
}

export interface BarChartOptions {
  id: string;
  title: string;
  desc: string;
  bars: ChartBar[];
  /** How a value on the axis reads (counts, bytes). */
  formatValue: (value: number) => string;
  /** Bytes: the axis's top is a round number of KB or MB rather than of bytes. */
  bytes?: boolean;
}

const WIDTH = 640;
const HEIGHT = 180;
const PAD = { left: 64, right: 8, top: 10, bottom: 24 };

/** 1, 2, 5, 10, 20, 50 …: the smallest round number not below `value`. */
export function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

export function barChart(options: BarChartOptions): Html {
  const { id, bars } = options;
  const highest = Math.max(0, ...bars.map((b) => b.parts.reduce((sum, [v]) => sum + v, 0)));
  const unit = options.bytes ? (highest >= 1024 * 1024 ? 1024 * 1024 : 1024) : 1;
  const max = Math.max(options.bytes ? 1 : 2, niceCeiling(highest / unit)) * unit;
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, bars.length);
  const barW = Math.max(1, slot * 0.72);
  const y = (v: number) => PAD.top + plotH - (v / max) * plotH;
  // Lines at 0, half and the top; only 0 and the top are labelled (half of a count may be no count).
  const grid = [0, max / 2, max].map(
    (v) => html`<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${round(y(v))}" y2="${round(y(v))}"></line>
${v === max / 2 ? '' : html`<text class="axis" x="${PAD.left - 6}" y="${round(y(v) + 4)}" text-anchor="end">${options.formatValue(v)}</text>`}`,
  );
  const drawn = bars.map((bar, i) => {
    const x = round(PAD.left + i * slot + (slot - barW) / 2);
    let base = 0;
    const rects = bar.parts
      .filter(([v]) => v > 0)
      .map(([v, cls]) => {
        const top = y(base + v);
        const rect = html`<rect class="${cls}" x="${x}" y="${round(top)}" width="${round(barW)}" height="${round(y(base) - top)}"></rect>`;
        base += v;
        return rect;
      });
    const label = bar.axisLabel ? html`<text class="axis" x="${round(x + barW / 2)}" y="${HEIGHT - 6}" text-anchor="middle">${bar.axisLabel}</text>` : '';
    // The whole column is the hover target, so even an empty bucket tells its time and its zero.
    return html`<g><title>${bar.label}</title><rect class="hit" x="${round(PAD.left + i * slot)}" y="${PAD.top}" width="${round(slot)}" height="${plotH}"></rect>${rects}${label}</g>`;
  });
  return html`<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-title ${id}-desc" focusable="false">
<title id="${id}-title">${options.title}</title>
<desc id="${id}-desc">${options.desc}</desc>
${grid}
${drawn}
</svg>`;
}
