import { minutesOf, type TouDayProfile } from '@meterdesk/contracts';
import { type KeyboardEvent, type PointerEvent, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useCalendar } from './calendar-context';
import { clockText, DAY_MINUTES, dragRange, SNAP_MINUTES, segmentsOf, setSwitch } from './calendar-edit';
import { issuesAt } from './calendar-issues';
import { rateColor } from './rate-colors';

const HOURS = [0, 3, 6, 9, 12, 15, 18, 21, 24];
/** The least share of the bar a segment needs to hold its rate's number legibly (full bar, mini bar). */
const LABEL_SHARE = { full: 0.02, mini: 0.1 };

const percent = (minutes: number) => `${(minutes / DAY_MINUTES) * 100}%`;

/**
 * A day profile as a 24-hour bar: one coloured segment per switch, its rate's number written on it.
 * Editable, each switch after midnight is a handle to drag (or move with the arrow keys, 5 minutes a
 * step, an hour with Shift) between its neighbours. `at` marks a moment (the preview's).
 */
export function DayBar({
  d,
  day,
  size = 'full',
  at,
}: {
  /** The profile's index in the calendar, for its issues and edits. */
  d: number;
  day: TouDayProfile;
  size?: 'full' | 'mini';
  at?: number;
}) {
  const { t } = useTranslation();
  const { issues, edit } = useCalendar();
  const bar = useRef<HTMLDivElement>(null);
  const movable = edit && size === 'full';

  const move = (s: number, minutes: number) => {
    const [low, high] = dragRange(day, s);
    const snapped = Math.round(minutes / SNAP_MINUTES) * SNAP_MINUTES;
    const time = clockText(Math.min(high, Math.max(low, snapped)));
    if (time !== day.switches[s]?.time) edit?.((calendar) => setSwitch(calendar, d, s, { time }));
  };
  const drag = (s: number) => (event: PointerEvent<HTMLDivElement>) => {
    const box = bar.current?.getBoundingClientRect();
    if (!box || box.width === 0 || !event.currentTarget.hasPointerCapture(event.pointerId)) return;
    move(s, ((event.clientX - box.left) / box.width) * DAY_MINUTES);
  };
  const keys = (s: number) => (event: KeyboardEvent<HTMLDivElement>) => {
    const step = event.shiftKey ? 60 : SNAP_MINUTES;
    const delta = { ArrowLeft: -step, ArrowDown: -step, ArrowRight: step, ArrowUp: step }[event.key];
    if (delta === undefined) return;
    event.preventDefault();
    move(s, minutesOf(day.switches[s]?.time ?? '00:00') + delta);
  };

  return (
    <div className={`tou-day tou-day-${size}`}>
      <div ref={bar} className="tou-bar" data-testid={size === 'full' ? `day-bar-${day.dayId}` : undefined}>
        {segmentsOf(day).map((segment) => {
          const color = rateColor(segment.rate);
          const bad = issuesAt(issues, `days.${d}.switches.${segment.index}`, true).length > 0;
          const label = t('tariffEditor.segment', {
            rate: segment.rate,
            start: clockText(segment.start),
            end: clockText(segment.end),
          });
          const share = (segment.end - segment.start) / DAY_MINUTES;
          return (
            <div
              key={segment.index}
              className={`tou-segment${bad ? ' tou-bad' : ''}`}
              style={{
                left: percent(segment.start),
                width: percent(segment.end - segment.start),
                background: color.fill,
                color: color.text,
              }}
              title={label}
              aria-label={label}
              role="img"
              data-testid={size === 'full' ? `segment-${day.dayId}-${segment.index}` : undefined}
              data-rate={segment.rate}
              data-start={clockText(segment.start)}
              data-end={clockText(segment.end)}
            >
              {share >= LABEL_SHARE[size] ? segment.rate : null}
            </div>
          );
        })}
        {movable &&
          day.switches.map((s, index) =>
            index === 0 ? null : (
              <div
                // biome-ignore lint/suspicious/noArrayIndexKey: a switch is its place in the day's order
                key={index}
                className="tou-handle"
                style={{ left: percent(minutesOf(s.time)) }}
                role="slider"
                tabIndex={0}
                aria-label={t('tariffEditor.switchHandle', { time: s.time, rate: s.rate })}
                aria-valuemin={0}
                aria-valuemax={DAY_MINUTES}
                aria-valuenow={minutesOf(s.time)}
                aria-valuetext={s.time}
                data-testid={`switch-handle-${day.dayId}-${index}`}
                onPointerDown={(event) => event.currentTarget.setPointerCapture(event.pointerId)}
                onPointerMove={drag(index)}
                onKeyDown={keys(index)}
              />
            ),
          )}
        {at !== undefined && <div className="tou-now" style={{ left: percent(at) }} data-testid="preview-marker" />}
      </div>
      {size === 'full' && (
        <div className="tou-hours" aria-hidden>
          {HOURS.map((hour) => (
            <span key={hour} style={{ left: percent(hour * 60) }}>
              {String(hour).padStart(2, '0')}
            </span>
          ))}
        </div>
      )}
    </div>
  );
}
