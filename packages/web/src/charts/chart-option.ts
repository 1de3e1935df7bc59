import type { ChartSpec, ChartTone } from '@meterdesk/contracts';
import { TONE_COLOURS } from './theme';

/** One line or bar of a chart: its name as the legend shows it, and a value per x. */
export interface SeriesData {
  name: string;
  values: readonly (number | null)[];
  kind?: ChartSpec['kind'];
  stack?: string;
  /** Its colour, where the colour tells what it is (offline, severe); else the palette's next. */
  tone?: ChartTone;
  /** On a chart of `rows`, what each dot stands for (an event's code), shown by its tooltip. */
  dotNames?: readonly (string | null)[];
}

/** What a chart shows, whoever builds it: x values along the axis and the series over them. */
export interface ChartData {
  x: readonly (string | number)[];
  xType: ChartSpec['xType'];
  series: readonly SeriesData[];
  /** Names the value axis (its unit). */
  yName?: string;
  /** Names the x axis where its values do not say what they are (times of day, in UTC). */
  xName?: string;
  /** A time axis's whole span (the chosen period), wherever the points lie within it. */
  xRange?: readonly [string, string];
  /** Scatter: the series are the rows of a category y axis, named by their names, in order. */
  rows?: boolean;
}

/** Points past which a chart offers zoom on its x axis: fewer read well at full width. */
const ZOOM_FROM = 32;

/**
 * The ECharts option of a chart: tooltips on the axis, a legend when several series share it, zoom
 * on long time axes. A pure function, so what a chart shows is tested without drawing it.
 */
export function chartOption(data: ChartData): Record<string, unknown> {
  const time = data.xType === 'time';
  const zoom = data.x.length > ZOOM_FROM;
  // Dots stand alone (events on a timeline): a tooltip names the one under the pointer.
  const dots = data.series.length > 0 && data.series.every((s) => s.kind === 'scatter');
  return {
    animation: false,
    grid: {
      left: 56,
      right: 24,
      top: data.series.length > 1 ? 40 : 24,
      bottom: (zoom ? 64 : 32) + (data.xName ? 20 : 0),
      // ECharts 6's own `containLabel` (which needs its legacy module): the axis labels stay inside the box (the names have the margins).
      outerBoundsMode: 'same',
      outerBoundsContain: 'axisLabel',
    },
    tooltip: { trigger: dots ? 'item' : 'axis', confine: true },
    legend: data.series.length > 1 ? { top: 0, type: 'scroll', itemGap: 20 } : { show: false },
    xAxis: {
      ...(time
        ? { type: 'time' }
        : { type: 'category', data: [...data.x], boundaryGap: data.series.some((s) => (s.kind ?? 'line') === 'bar') }),
      ...(data.xName && { name: data.xName, nameLocation: 'middle', nameGap: 28 }),
      ...(time && data.xRange && { min: data.xRange[0], max: data.xRange[1] }),
    },
    yAxis: data.rows
      ? { type: 'category', data: data.series.map((s) => s.name) }
      : { type: 'value', name: data.yName ?? '', nameTextStyle: { align: 'left' } },
    dataZoom: zoom ? [{ type: 'inside' }, { type: 'slider', height: 20, bottom: 8 }] : [],
    series: data.series.map((s, row) =>
      s.kind === 'scatter'
        ? {
            name: s.name,
            ...(s.tone && { color: TONE_COLOURS[s.tone] }),
            type: 'scatter',
            // A dot per value; an empty one is no event of this series. On rows, the dot sits on its
            // series' row and its value names it.
            data: s.values.flatMap((value, i): unknown[] =>
              value === null
                ? []
                : data.rows
                  ? [{ value: [data.x[i], row], name: s.dotNames?.[i] ?? String(value) }]
                  : [[data.x[i], value]],
            ),
          }
        : {
            name: s.name,
            ...(s.tone && { color: TONE_COLOURS[s.tone] }),
            type: s.kind ?? 'line',
            stack: s.stack,
            showSymbol: data.x.length <= ZOOM_FROM,
            connectNulls: false,
            data: time ? s.values.map((value, i) => [data.x[i], value]) : [...s.values],
          },
    ),
  };
}

const numberAt = (point: Record<string, unknown> | undefined, field: string) =>
  typeof point?.[field] === 'number' ? (point[field] as number) : null;

/**
 * A page's declared chart over its points: each series a field of the point, named by its label; with
 * `seriesBy`, a line per curve (a meter, a day) named by it, each curve's points placed by their x.
 * `xText` names an x value (a state's label rather than its code).
 */
export function specData(
  spec: ChartSpec,
  points: readonly Record<string, unknown>[],
  label: (field: string) => string,
  xText: (value: string | number) => string | number = (value) => value,
  {
    xRange,
    dotName = String,
  }: {
    /** The chosen period's span, for a time axis. */
    xRange?: readonly [string, string];
    /** What a dot of `rows` stands for, by its value (`rows.valueLabel` translated). */
    dotName?: (value: number) => string;
  } = {},
): ChartData {
  const stack = spec.stacked ? 'total' : undefined;
  const by = spec.seriesBy;
  if (!by && !spec.categories)
    return {
      x: points.map((p) => xText(p[spec.x] as string | number)),
      xType: spec.xType,
      ...(spec.xType === 'time' && xRange && { xRange }),
      ...(spec.rows && { rows: true }),
      series: spec.series.map((field) => {
        const values = points.map((p) => numberAt(p, field));
        return {
          name: label(field),
          kind: spec.kind,
          stack,
          tone: spec.tones?.[field],
          values,
          ...(spec.rows && { dotNames: values.map((value) => (value === null ? null : dotName(value))) }),
        };
      }),
    };
  const x = spec.categories ?? [...new Set(points.map((p) => String(p[spec.x])))].sort();
  const curves = by ? [...new Set(points.map((p) => String(p[by])))] : [''];
  const series = curves.flatMap((curve) => {
    const at = new Map(points.filter((p) => !by || String(p[by]) === curve).map((p) => [String(p[spec.x]), p]));
    return spec.series.map((field) => ({
      // One field per curve is named by its curve alone; the field then names the value axis.
      name: !by ? label(field) : spec.series.length > 1 ? `${curve} ${label(field)}` : curve,
      kind: spec.kind,
      stack,
      // Overlaid curves are told apart by the palette; a tone would paint them all alike.
      tone: by ? undefined : spec.tones?.[field],
      values: x.map((value) => numberAt(at.get(value), field)),
    }));
  });
  return {
    x: x.map(xText),
    xType: spec.xType,
    series,
    yName: by && spec.series.length === 1 ? label(spec.series[0] as string) : undefined,
    xName: by ? label(spec.x) : undefined,
  };
}
