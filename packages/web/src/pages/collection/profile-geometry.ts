import { INTERVALS_PER_DAY } from '@meterdesk/contracts';

const DAY_MINUTES = 24 * 60;
const INTERVAL_MINUTES = DAY_MINUTES / INTERVALS_PER_DAY;

export interface ChartPoint {
  ts: string;
  value: number;
  x: number;
  y: number;
}
export interface ChartSize {
  width: number;
  height: number;
  /** Room left of the plot for the value axis, and below it for the time axis. */
  left: number;
  bottom: number;
}
export interface ProfileGeometry {
  /** SVG path: one `M` per run of consecutive intervals, so a missing interval shows as a gap. */
  path: string;
  points: ChartPoint[];
  yTicks: { y: number; label: string }[];
  xTicks: { x: number; label: string }[];
}

/** 1, 2 or 5 × a power of ten: the step of at most `count` ticks covering `span`. */
export function niceStep(span: number, count: number): number {
  if (!(span > 0)) return 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
  return step ?? 10 * power;
}

const minutesOf = (ts: string, dayStart: number) => (Date.parse(ts) - dayStart) / 60_000;
const label = (value: number) => String(Number(value.toPrecision(6)));

/**
 * Where each interval of a UTC day lies in the plot: time across (00:00 … 24:00), value up from a
 * baseline that includes zero. Intervals more than one apart (or without a value) break the line.
 */
export function profileGeometry(
  rows: readonly { ts: string; value: number | null }[],
  day: string,
  size: ChartSize,
): ProfileGeometry {
  const dayStart = Date.parse(`${day}T00:00:00Z`);
  const plotWidth = size.width - size.left;
  const plotHeight = size.height - size.bottom;
  const present = rows.filter((r): r is { ts: string; value: number } => r.value !== null);
  const values = present.map((r) => r.value);
  const low = Math.min(0, ...values);
  const high = Math.max(0, ...values);
  const step = niceStep(high - low || 1, 5);
  const bottom = Math.floor(low / step) * step;
  const top = Math.max(Math.ceil(high / step) * step, bottom + step);
  const x = (minutes: number) => size.left + (minutes / DAY_MINUTES) * plotWidth;
  const y = (value: number) => plotHeight - ((value - bottom) / (top - bottom)) * plotHeight;

  const points = present.map((r) => ({ ts: r.ts, value: r.value, x: x(minutesOf(r.ts, dayStart)), y: y(r.value) }));
  let path = '';
  let previous: number | null = null;
  for (const point of points) {
    const minutes = minutesOf(point.ts, dayStart);
    const joined = previous !== null && minutes - previous <= INTERVAL_MINUTES;
    path += `${path ? ' ' : ''}${joined ? 'L' : 'M'}${point.x.toFixed(1)} ${point.y.toFixed(1)}`;
    previous = minutes;
  }
  const yTicks = [];
  for (let value = bottom; value <= top + step / 2; value += step) yTicks.push({ y: y(value), label: label(value) });
  const xTicks = Array.from({ length: 9 }, (_, i) => ({
    x: x(i * 180),
    label: `${String(i * 3).padStart(2, '0')}:00`,
  }));
  return { path, points, yTicks, xTicks };
}
