import type { MeterProfile } from '@meterdesk/contracts';
import { useTranslation } from 'react-i18next';
import { profileGeometry } from './profile-geometry';

const SIZE = { width: 1000, height: 280, left: 56, bottom: 24 };
/** Room outside the plot: above it for the unit and the top value, right of it for the last time (24:00). */
const PAD = { top: 20, right: 20 };

/**
 * One channel of a day's load profile as a line, drawn in SVG: 96 points need no chart library, and
 * the data tab stays a small chunk.
 */
export function ProfileChart({ profile, channel }: { profile: MeterProfile; channel: string }) {
  const { t } = useTranslation();
  const unit = profile.channels.find((c) => c.key === channel)?.unit ?? '';
  const rows = profile.rows.map((r) => ({
    ts: r.ts,
    value: (r.values as Record<string, number | null>)[channel] ?? null,
  }));
  const geometry = profileGeometry(rows, profile.day, SIZE);
  const plotBottom = SIZE.height - SIZE.bottom;
  const title = t('readings.profile.chart', { day: profile.day, channel: t(`readings.channels.${channel}`) });
  return (
    <svg
      role="img"
      aria-label={title}
      data-testid="profile-chart"
      viewBox={`0 ${-PAD.top} ${SIZE.width + PAD.right} ${SIZE.height + PAD.top + 4}`}
      style={{ width: '100%', height: 'auto', fontSize: 11 }}
    >
      <title>{title}</title>
      {geometry.yTicks.map((tick) => (
        <g key={tick.label}>
          <line x1={SIZE.left} x2={SIZE.width} y1={tick.y} y2={tick.y} stroke="#f0f0f0" />
          <text x={SIZE.left - 6} y={tick.y + 4} textAnchor="end" fill="#8c8c8c">
            {tick.label}
          </text>
        </g>
      ))}
      {geometry.xTicks.map((tick) => (
        <text key={tick.label} x={tick.x} y={plotBottom + 16} textAnchor="middle" fill="#8c8c8c">
          {tick.label}
        </text>
      ))}
      <text x={4} y={-8} fill="#8c8c8c">
        {unit}
      </text>
      <line x1={SIZE.left} x2={SIZE.width} y1={plotBottom} y2={plotBottom} stroke="#d9d9d9" />
      <path data-testid="profile-line" d={geometry.path} fill="none" stroke="#1677ff" strokeWidth={1.5} />
      {geometry.points.map((p) => (
        <circle key={p.ts} cx={p.x} cy={p.y} r={1.5} fill="#1677ff">
          <title>{`${p.ts.slice(11, 16)} ${p.value} ${unit}`}</title>
        </circle>
      ))}
    </svg>
  );
}
