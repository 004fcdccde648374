import { barChart, niceCeiling } from './charts';

describe('server-rendered bar charts', () => {
  it('niceCeiling: the smallest round number not below the value', () => {
    expect([0, 0.3, 1, 3, 7, 10, 11, 24, 26, 99, 101, 480].map(niceCeiling)).toEqual([1, 0.5, 1, 5, 10, 10, 20, 25, 50, 100, 200, 500]);
  });

  const chart = (values: number[], bytes = false) =>
    barChart({
      id: 'c',
      title: 'Jobs <by hour>',
      desc: 'Hourly & UTC',
      bytes,
      formatValue: (v) => `${v}`,
      bars: values.map((v, i) => ({ axisLabel: i === 0 ? '00:00' : null, label: `bar ${i}: ${v} "jobs"`, parts: [[v, 'bar-ok']] as Array<[number, string]> })),
    }).toString();

  it('names itself for screen readers, escapes every text, and draws each bar to scale with its values as a tooltip', () => {
    const svg = chart([0, 5, 10]);
    expect(svg).toContain('role="img" aria-labelledby="c-title c-desc"');
    expect(svg).toContain('<title id="c-title">Jobs &lt;by hour&gt;</title>');
    expect(svg).toContain('<desc id="c-desc">Hourly &amp; UTC</desc>');
    expect(svg).toContain('<title>bar 1: 5 &quot;jobs&quot;</title>');
    const heights = [...svg.matchAll(/<rect class="bar-ok" [^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(heights).toHaveLength(2); // an empty bucket draws no bar, only its hover target
    expect(heights[1]).toBeCloseTo(2 * heights[0], 0);
    expect(svg).toContain('>00:00</text>');
    expect(svg).not.toMatch(/NaN|Infinity/);
  });

  it('an all-zero chart still has a scale (0 to 2); a bytes axis tops out at a round number of KB or MB', () => {
    expect(chart([0, 0])).toContain('text-anchor="end">2</text>');
    expect(chart([150 * 1024], true)).toContain(`text-anchor="end">${200 * 1024}</text>`);
    expect(chart([3 * 1024 * 1024], true)).toContain(`text-anchor="end">${5 * 1024 * 1024}</text>`);
  });
});
