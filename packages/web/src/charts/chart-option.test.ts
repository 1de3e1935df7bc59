import { describe, expect, it } from 'vitest';
import { chartOption, specData } from './chart-option';
import { SERIES_COLOURS, TONE_COLOURS } from './theme';

describe('chartOption', () => {
  const points = Array.from({ length: 40 }, (_, i) => ({
    day: `2026-01-${String(i + 1).padStart(2, '0')}`,
    a: i,
    b: null,
  }));

  it("draws a page's declared series over its points, named by their labels, gaps kept as gaps", () => {
    const data = specData(
      { kind: 'bar', x: 'day', xType: 'day', series: ['a', 'b'], stacked: true },
      points,
      (f) => `L-${f}`,
    );
    const option = chartOption(data) as { series: { name: string; type: string; stack?: string; data: unknown[] }[] };
    expect(option.series.map((s) => [s.name, s.type, s.stack])).toEqual([
      ['L-a', 'bar', 'total'],
      ['L-b', 'bar', 'total'],
    ]);
    expect(option.series[1]?.data.every((v) => v === null)).toBe(true);
  });

  it("paints a series its tone's colour, leaving the others and overlaid curves to the palette", () => {
    const tones = { a: 'good', b: 'bad' } as const;
    const colours = (data: ReturnType<typeof specData>) =>
      (chartOption(data) as { series: { color?: string }[] }).series.map((s) => s.color);
    const spec = {
      kind: 'bar',
      x: 'day',
      xType: 'day',
      series: ['a', 'b', 'c'],
      tones: { a: 'good', b: 'bad' },
    } as const;
    expect(colours(specData(spec, points, (f) => f))).toEqual([TONE_COLOURS.good, TONE_COLOURS.bad, undefined]);
    // Offline in red, never the palette's second colour (green) it used to take.
    expect(TONE_COLOURS.bad).not.toBe(SERIES_COLOURS[1]);
    const overlay = specData(
      { ...spec, series: ['a'], seriesBy: 'curve', tones },
      [
        { day: '2026-01-01', curve: 'm1', a: 1 },
        { day: '2026-01-01', curve: 'm2', a: 2 },
      ],
      (f) => f,
    );
    expect(colours(overlay)).toEqual([undefined, undefined]);
  });

  it('offers zoom on long axes only, a legend only for several series, and pairs time points', () => {
    const long = chartOption({
      x: points.map((p) => p.day),
      xType: 'day',
      series: [{ name: 'a', values: points.map((p) => p.a) }],
    });
    expect((long.dataZoom as unknown[]).length).toBe(2);
    expect(long.legend).toEqual({ show: false });
    const time = chartOption({
      x: ['2026-01-01T00:15:00Z', '2026-01-01T00:30:00Z'],
      xType: 'time',
      series: [
        { name: 'x', values: [1, 2] },
        { name: 'y', values: [3, null] },
      ],
    }) as { dataZoom: unknown[]; legend: { type: string }; series: { data: unknown[] }[]; xAxis: { type: string } };
    expect(time.dataZoom).toEqual([]);
    expect(time.legend.type).toBe('scroll');
    expect(time.xAxis.type).toBe('time');
    expect(time.series[1]?.data).toEqual([
      ['2026-01-01T00:15:00Z', 3],
      ['2026-01-01T00:30:00Z', null],
    ]);
  });

  it('draws scatter series as lone dots, one per value, with a tooltip per dot', () => {
    const option = chartOption(
      specData(
        { kind: 'scatter', x: 'time', xType: 'time', series: ['severe', 'regular'] },
        [
          { time: '2026-01-01T10:00:00.000Z', severe: 1, regular: null },
          { time: '2026-01-01T10:40:00.000Z', severe: null, regular: 2 },
        ],
        (f) => f,
      ),
    ) as { tooltip: { trigger: string }; series: { type: string; data: unknown[] }[] };
    expect(option.tooltip.trigger).toBe('item');
    expect(option.series.map((s) => [s.type, s.data])).toEqual([
      ['scatter', [['2026-01-01T10:00:00.000Z', 1]]],
      ['scatter', [['2026-01-01T10:40:00.000Z', 2]]],
    ]);
  });

  it('puts a timeline on rows of levels (whole categories, no ticks between) over the whole chosen period', () => {
    const option = chartOption(
      specData(
        {
          kind: 'scatter',
          x: 'time',
          xType: 'time',
          series: ['regular', 'medium', 'severe'],
          rows: { valueLabel: 'code' },
        },
        [
          { time: '2026-01-03T10:00:00.000Z', regular: null, medium: null, severe: 1 },
          { time: '2026-01-04T10:40:00.000Z', regular: 17, medium: null, severe: null },
        ],
        (f) => `L-${f}`,
        (value) => value,
        { xRange: ['2026-01-01T00:00:00.000Z', '2026-01-08T00:00:00.000Z'], dotName: (code) => `Code ${code}` },
      ),
    ) as {
      yAxis: { type: string; data: string[] };
      xAxis: { type: string; min: string; max: string };
      series: { data: unknown[] }[];
    };
    expect(option.yAxis).toEqual({ type: 'category', data: ['L-regular', 'L-medium', 'L-severe'] });
    expect([option.xAxis.type, option.xAxis.min, option.xAxis.max]).toEqual([
      'time',
      '2026-01-01T00:00:00.000Z',
      '2026-01-08T00:00:00.000Z',
    ]);
    expect(option.series.map((s) => s.data)).toEqual([
      [{ value: ['2026-01-04T10:40:00.000Z', 0], name: 'Code 17' }],
      [],
      [{ value: ['2026-01-03T10:00:00.000Z', 2], name: 'Code 1' }],
    ]);
  });

  it('overlays curves by their seriesBy field on the whole declared axis, a missing slot a gap in its curve', () => {
    const data = specData(
      { kind: 'line', x: 'slot', xType: 'category', series: ['kw'], seriesBy: 'curve', categories: ['a', 'b', 'c'] },
      [
        { slot: 'a', curve: 'M2', kw: 5 },
        { slot: 'a', curve: 'M1', kw: 1 },
        { slot: 'c', curve: 'M1', kw: 3 },
      ],
      (f) => `L-${f}`,
    );
    expect(data.x).toEqual(['a', 'b', 'c']);
    expect([data.yName, data.xName]).toEqual(['L-kw', 'L-slot']);
    expect(data.series.map((s) => [s.name, s.values])).toEqual([
      ['M2', [5, null, null]],
      ['M1', [1, null, 3]],
    ]);
    const option = chartOption(data) as {
      series: { connectNulls: boolean }[];
      legend: { type: string };
      xAxis: { name: string };
    };
    expect(option.series.every((s) => s.connectNulls === false)).toBe(true);
    expect(option.xAxis.name).toBe('L-slot');
    expect(option.legend.type).toBe('scroll');
  });

  it('names x values by their text, not their code', () => {
    const data = specData(
      { kind: 'bar', x: 'state', xType: 'category', series: ['n'] },
      [
        { state: 'complete', n: 2 },
        { state: 'none', n: 1 },
      ],
      (f) => f,
      (value) => `text-${value}`,
    );
    expect(data.x).toEqual(['text-complete', 'text-none']);
  });
});
