import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { MAX_DAY_SWITCHES, type TouDayProfile } from '@meterdesk/contracts';
import { Button, Card, Flex } from 'antd';
import { useTranslation } from 'react-i18next';
import { IssueText, useCalendar, useHasIssue } from './calendar-context';
import { addDay, addSwitch, removeDay, removeSwitch, setSwitch } from './calendar-edit';
import { CLOCK, PatternInput, RatePicker } from './calendar-inputs';
import { DayBar } from './day-bar';

function SwitchRow({ d, day, s }: { d: number; day: TouDayProfile; s: number }) {
  const { t } = useTranslation();
  const { edit } = useCalendar();
  const sw = day.switches[s];
  const invalid = useHasIssue(`days.${d}.switches.${s}`, true);
  if (!sw || !edit) return null;
  const prefix = `switch-${day.dayId}-${s}`;
  return (
    <Flex vertical gap={2} data-testid={prefix}>
      <Flex gap="small" align="center" wrap>
        <PatternInput
          value={sw.time}
          pattern={CLOCK}
          formatKey="timeFormat"
          width={76}
          // The first switch opens the day at midnight; one stored elsewhere may still be corrected.
          disabled={s === 0 && sw.time === '00:00'}
          invalid={invalid}
          testId={`${prefix}-time`}
          label={t('tariffEditor.fields.time')}
          onCommit={(time) => edit((calendar) => setSwitch(calendar, d, s, { time }))}
        />
        <RatePicker
          value={sw.rate}
          testId={`${prefix}-rate`}
          onChange={(rate) => edit((calendar) => setSwitch(calendar, d, s, { rate }))}
        />
        <Button
          size="small"
          type="text"
          icon={<DeleteOutlined />}
          disabled={s === 0}
          aria-label={t('tariffEditor.actions.removeSwitch')}
          data-testid={`${prefix}-remove`}
          onClick={() => edit((calendar) => removeSwitch(calendar, d, s))}
        />
      </Flex>
      <IssueText path={`days.${d}.switches.${s}`} below />
    </Flex>
  );
}

/** One day profile: its bar and, editable, its switches with their times and rates. */
function DayProfileCard({ d, day }: { d: number; day: TouDayProfile }) {
  const { t } = useTranslation();
  const { calendar, edit } = useCalendar();
  const badId = useHasIssue(`days.${d}.dayId`);
  const badList = useHasIssue(`days.${d}.switches`);
  const bad = badId || badList;
  return (
    <Card
      size="small"
      className={bad ? 'tou-bad-card' : undefined}
      title={t('tariffEditor.day', { id: day.dayId })}
      data-testid={`day-profile-${day.dayId}`}
      extra={
        edit && (
          <Flex gap="small">
            <Button
              size="small"
              icon={<PlusOutlined />}
              disabled={day.switches.length >= MAX_DAY_SWITCHES}
              data-testid={`add-switch-${day.dayId}`}
              onClick={() => edit((c) => addSwitch(c, d))}
            >
              {t('tariffEditor.actions.addSwitch')}
            </Button>
            <Button
              size="small"
              danger
              icon={<DeleteOutlined />}
              disabled={calendar.days.length <= 1}
              data-testid={`remove-day-${day.dayId}`}
              onClick={() => edit((c) => removeDay(c, d))}
            >
              {t('tariffEditor.actions.removeDay')}
            </Button>
          </Flex>
        )
      }
    >
      <Flex vertical gap="small">
        <IssueText path={`days.${d}`} />
        <IssueText path={`days.${d}.dayId`} />
        <IssueText path={`days.${d}.switches`} />
        <DayBar d={d} day={day} />
        {edit && (
          <Flex wrap gap="middle">
            {day.switches.map((_, s) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a switch is its place in the day's order
              <SwitchRow key={s} d={d} day={day} s={s} />
            ))}
          </Flex>
        )}
      </Flex>
    </Card>
  );
}

export function DayProfiles() {
  const { t } = useTranslation();
  const { calendar, edit } = useCalendar();
  return (
    <Flex vertical gap="small" data-testid="day-profiles">
      <IssueText path="days" />
      {calendar.days.map((day, d) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: profiles are edited in place, their numbers may repeat
        <DayProfileCard key={d} d={d} day={day} />
      ))}
      {edit && (
        <Button
          icon={<PlusOutlined />}
          data-testid="add-day"
          onClick={() => edit(addDay)}
          style={{ alignSelf: 'start' }}
        >
          {t('tariffEditor.actions.addDay')}
        </Button>
      )}
    </Flex>
  );
}
