import { DeleteOutlined, PlusOutlined } from '@ant-design/icons';
import { WEEKDAYS } from '@meterdesk/contracts';
import { Button, Flex, Select } from 'antd';
import { useTranslation } from 'react-i18next';
import { IssueText, useCalendar } from './calendar-context';
import { addWeek, removeWeek, setWeekDay } from './calendar-edit';
import { issuesAt } from './calendar-issues';
import { DayBar } from './day-bar';

/** A week profile's day: its day profile's number and mini bar, editable as a choice among the profiles. */
function WeekCell({ w, weekday, dayId }: { w: number; weekday: number; dayId: number }) {
  const { t } = useTranslation();
  const { calendar, issues, edit } = useCalendar();
  const d = calendar.days.findIndex((day) => day.dayId === dayId);
  const day = calendar.days[d];
  const week = calendar.weeks[w];
  const testId = `week-${week?.weekId}-${WEEKDAYS[weekday]}`;
  const bad = issuesAt(issues, `weeks.${w}.days.${weekday}`).length > 0;
  return (
    <td className={bad ? 'tou-bad-cell' : undefined} data-testid={testId} data-day={dayId}>
      <Flex vertical gap={4}>
        {edit ? (
          <Select<number>
            size="small"
            value={dayId}
            status={bad ? 'error' : undefined}
            aria-label={t('tariffEditor.weekCell', {
              week: week?.weekId,
              weekday: t(`tariffEditor.weekdays.${WEEKDAYS[weekday]}`),
            })}
            data-testid={`${testId}-select`}
            options={calendar.days.map((option) => ({
              value: option.dayId,
              label: t('tariffEditor.dayShort', { id: option.dayId }),
            }))}
            onChange={(next) => edit((c) => setWeekDay(c, w, weekday, next))}
          />
        ) : (
          <span>{t('tariffEditor.dayShort', { id: dayId })}</span>
        )}
        {day && <DayBar d={d} day={day} size="mini" />}
        <IssueText path={`weeks.${w}.days.${weekday}`} />
      </Flex>
    </td>
  );
}

/** Week profiles × Monday…Sunday, each cell the day profile that day follows. */
export function WeekGrid() {
  const { t } = useTranslation();
  const { calendar, edit } = useCalendar();
  return (
    <Flex vertical gap="small" data-testid="week-grid">
      <IssueText path="weeks" />
      <div className="tou-week-scroll">
        <table className="tou-week-grid">
          <thead>
            <tr>
              <th scope="col">{t('tariffEditor.fields.weekId')}</th>
              {WEEKDAYS.map((weekday) => (
                <th key={weekday} scope="col" title={t(`tariffEditor.weekdays.${weekday}`)}>
                  {t(`tariffEditor.weekdaysShort.${weekday}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {calendar.weeks.map((week, w) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: profiles are edited in place, their numbers may repeat
              <tr key={w} data-testid={`week-${week.weekId}`}>
                <th scope="row">
                  <Flex vertical gap={2} align="start">
                    <Flex gap={4} align="center">
                      {t('tariffEditor.week', { id: week.weekId })}
                      {edit && (
                        <Button
                          size="small"
                          type="text"
                          danger
                          icon={<DeleteOutlined />}
                          disabled={calendar.weeks.length <= 1}
                          aria-label={t('tariffEditor.actions.removeWeek')}
                          data-testid={`remove-week-${week.weekId}`}
                          onClick={() => edit((c) => removeWeek(c, w))}
                        />
                      )}
                    </Flex>
                    <IssueText path={`weeks.${w}`} />
                    <IssueText path={`weeks.${w}.weekId`} />
                    <IssueText path={`weeks.${w}.days`} />
                  </Flex>
                </th>
                {week.days.map((dayId, weekday) => (
                  <WeekCell key={WEEKDAYS[weekday] ?? weekday} w={w} weekday={weekday} dayId={dayId} />
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {edit && (
        <Button
          icon={<PlusOutlined />}
          data-testid="add-week"
          onClick={() => edit(addWeek)}
          style={{ alignSelf: 'start' }}
        >
          {t('tariffEditor.actions.addWeek')}
        </Button>
      )}
    </Flex>
  );
}
