import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import type { TouCalendar } from '@meterdesk/contracts';
import { Button, Flex, Select, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import { IssueText, useCalendar, useHasIssue } from './calendar-context';
import { addSeason, addSpecialDay, removeSeason, removeSpecialDay, setSeason, setSpecialDay } from './calendar-edit';
import { MONTH_DAY, PatternInput, SPECIAL_DATE } from './calendar-inputs';

/** A leap year's days, so 29 February has its place on the strip. */
const MONTH_LENGTHS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const YEAR_DAYS = 366;
const MONTH_STARTS = MONTH_LENGTHS.map((_, m) => MONTH_LENGTHS.slice(0, m).reduce((a, b) => a + b, 0));
const MONTH_DAYS = MONTH_LENGTHS.flatMap((length, m) =>
  Array.from({ length }, (_, d) => `${String(m + 1).padStart(2, '0')}-${String(d + 1).padStart(2, '0')}`),
);
/** Light tints telling neighbouring seasons apart; each band also writes its season's number. */
const SEASON_TINTS = ['#DCE9F5', '#F6E8CC', '#D9EFE5', '#F2DDEA', '#E6E6E6', '#E9E3F5'];

const dayOfYear = (monthDay: string) => {
  const month = Number(monthDay.slice(0, 2)) - 1;
  return (MONTH_STARTS[month] ?? 0) + Number(monthDay.slice(3, 5)) - 1;
};
const percent = (days: number) => `${(days / YEAR_DAYS) * 100}%`;

/**
 * The year's stretches by season, as the meter reads them (`dayProfileOn`): a day follows the last
 * season started by then; the days before the first start follow the last season, from the year before.
 */
export function seasonBands(calendar: TouCalendar): { season: number; from: number; to: number }[] {
  const bands: { season: number; from: number; to: number }[] = [];
  const { seasons } = calendar;
  if (seasons.length === 0) return bands;
  MONTH_DAYS.forEach((monthDay, day) => {
    let season = seasons.length - 1;
    seasons.forEach((s, i) => {
      if (s.start <= monthDay) season = i;
    });
    const last = bands.at(-1);
    if (last && last.season === season) last.to = day + 1;
    else bands.push({ season, from: day, to: day + 1 });
  });
  return bands;
}

function Strip() {
  const { t } = useTranslation();
  const { calendar } = useCalendar();
  return (
    <div className="tou-year" data-testid="year-strip">
      <div className="tou-months" aria-hidden>
        {MONTH_STARTS.map((start, m) => (
          <span key={start} style={{ left: percent(start), width: percent(MONTH_LENGTHS[m] ?? 0) }}>
            {t(`tariffEditor.months.m${m + 1}`)}
          </span>
        ))}
      </div>
      <div className="tou-seasons">
        {seasonBands(calendar).map((band, n) => {
          const season = calendar.seasons[band.season];
          const title = t('tariffEditor.seasonBand', {
            n: band.season + 1,
            start: season?.start,
            week: season?.weekId,
          });
          return (
            <div
              key={band.from}
              className="tou-season"
              style={{
                left: percent(band.from),
                width: percent(band.to - band.from),
                background: SEASON_TINTS[band.season % SEASON_TINTS.length],
              }}
              title={title}
              aria-label={title}
              role="img"
              data-testid={`season-band-${n}`}
              data-season={band.season + 1}
            >
              {t('tariffEditor.seasonShort', { n: band.season + 1, week: season?.weekId })}
            </div>
          );
        })}
        {calendar.specialDays.map((special, i) => {
          const title = t('tariffEditor.specialMark', { date: special.date, id: special.dayId });
          return (
            <div
              // biome-ignore lint/suspicious/noArrayIndexKey: a special day is its row, its date may repeat
              key={i}
              className={`tou-special${special.date.length > 5 ? ' tou-special-once' : ''}`}
              style={{ left: percent(dayOfYear(special.date.slice(-5)) + 0.5) }}
              title={title}
              aria-label={title}
              role="img"
              data-testid={`special-mark-${i}`}
            />
          );
        })}
      </div>
    </div>
  );
}

function SeasonRow({ s }: { s: number }) {
  const { t } = useTranslation();
  const { calendar, edit } = useCalendar();
  const season = calendar.seasons[s];
  const badStart = useHasIssue(`seasons.${s}.start`);
  const badWeek = useHasIssue(`seasons.${s}.weekId`);
  if (!season) return null;
  return (
    <Flex vertical gap={2} data-testid={`season-${s}`}>
      <Flex gap="small" align="center" wrap>
        <span className="tou-swatch" style={{ background: SEASON_TINTS[s % SEASON_TINTS.length] }} />
        <Typography.Text strong>{t('tariffEditor.season', { n: s + 1 })}</Typography.Text>
        {edit ? (
          <>
            {t('tariffEditor.fields.start')}
            <PatternInput
              value={season.start}
              pattern={MONTH_DAY}
              formatKey="tariffDateFormat"
              width={70}
              invalid={badStart}
              label={t('tariffEditor.fields.start')}
              testId={`season-${s}-start`}
              onCommit={(start) => edit((c) => setSeason(c, s, { start }))}
            />
            <Select<number>
              size="small"
              value={season.weekId}
              status={badWeek ? 'error' : undefined}
              style={{ minWidth: 130 }}
              aria-label={t('tariffEditor.fields.weekId')}
              data-testid={`season-${s}-week`}
              options={calendar.weeks.map((week) => ({
                value: week.weekId,
                label: t('tariffEditor.week', { id: week.weekId }),
              }))}
              onChange={(weekId) => edit((c) => setSeason(c, s, { weekId }))}
            />
            <Button
              size="small"
              type="text"
              danger
              icon={<DeleteOutlined />}
              disabled={calendar.seasons.length <= 1}
              aria-label={t('tariffEditor.actions.removeSeason')}
              data-testid={`season-${s}-remove`}
              onClick={() => edit((c) => removeSeason(c, s))}
            />
          </>
        ) : (
          t('tariffEditor.seasonText', { start: season.start, week: season.weekId })
        )}
      </Flex>
      <IssueText path={`seasons.${s}`} below />
    </Flex>
  );
}

function SpecialDayRow({ i }: { i: number }) {
  const { t } = useTranslation();
  const { calendar, edit } = useCalendar();
  const special = calendar.specialDays[i];
  const badDate = useHasIssue(`specialDays.${i}.date`);
  const badDay = useHasIssue(`specialDays.${i}.dayId`);
  if (!special) return null;
  return (
    <Flex vertical gap={2} data-testid={`special-day-${i}`}>
      <Flex gap="small" align="center" wrap>
        {edit ? (
          <>
            <PatternInput
              value={special.date}
              pattern={SPECIAL_DATE}
              formatKey="tariffDateFormat"
              width={110}
              invalid={badDate}
              label={t('tariffEditor.fields.date')}
              testId={`special-day-${i}-date`}
              onCommit={(date) => edit((c) => setSpecialDay(c, i, { date }))}
            />
            <Select<number>
              size="small"
              value={special.dayId}
              status={badDay ? 'error' : undefined}
              style={{ minWidth: 130 }}
              aria-label={t('tariffEditor.fields.dayId')}
              data-testid={`special-day-${i}-day`}
              options={calendar.days.map((day) => ({
                value: day.dayId,
                label: t('tariffEditor.day', { id: day.dayId }),
              }))}
              onChange={(dayId) => edit((c) => setSpecialDay(c, i, { dayId }))}
            />
            <Button
              size="small"
              type="text"
              danger
              icon={<DeleteOutlined />}
              aria-label={t('tariffEditor.actions.removeSpecialDay')}
              data-testid={`special-day-${i}-remove`}
              onClick={() => edit((c) => removeSpecialDay(c, i))}
            />
          </>
        ) : (
          t('tariffEditor.specialMark', { date: special.date, id: special.dayId })
        )}
      </Flex>
      <IssueText path={`specialDays.${i}`} below />
    </Flex>
  );
}

/** The year: its season bands and special days on a 12-month strip, and (editable) their lists. */
export function YearStrip() {
  const { t } = useTranslation();
  const { calendar, edit } = useCalendar();
  return (
    <Flex vertical gap="middle">
      <Strip />
      <Flex gap="large" wrap>
        <Flex vertical gap="small" style={{ flex: '1 1 360px' }} data-testid="seasons">
          <Typography.Text type="secondary">{t('tariffEditor.sections.seasons')}</Typography.Text>
          <IssueText path="seasons" />
          {calendar.seasons.map((_, s) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a season is its row, edited in place
            <SeasonRow key={s} s={s} />
          ))}
          {edit && (
            <Button
              size="small"
              icon={<PlusOutlined />}
              data-testid="add-season"
              onClick={() => edit(addSeason)}
              style={{ alignSelf: 'start' }}
            >
              {t('tariffEditor.actions.addSeason')}
            </Button>
          )}
        </Flex>
        <Flex vertical gap="small" style={{ flex: '1 1 360px' }} data-testid="special-days">
          <Typography.Text type="secondary">{t('tariffEditor.sections.specialDays')}</Typography.Text>
          <IssueText path="specialDays" />
          {calendar.specialDays.length === 0 && (
            <Typography.Text type="secondary">{t('tariffEditor.noSpecialDays')}</Typography.Text>
          )}
          {calendar.specialDays.map((_, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a special day is its row, edited in place
            <SpecialDayRow key={i} i={i} />
          ))}
          {edit && (
            <Button
              size="small"
              icon={<PlusOutlined />}
              data-testid="add-special-day"
              onClick={() => edit(addSpecialDay)}
              style={{ alignSelf: 'start' }}
            >
              {t('tariffEditor.actions.addSpecialDay')}
            </Button>
          )}
        </Flex>
      </Flex>
    </Flex>
  );
}
