import type { CommandRecord, ResultCode } from '@meterdesk/contracts';
import { type TableColumnsType, Tag } from 'antd';
import type { TFunction } from 'i18next';
import { useTranslation } from 'react-i18next';
import { formatDateTime } from '@/fields/date-text';
import type { ResultRow } from './plan-runs';

/** The result as the user reads it: its code and the code's text in their language ("91 Busy"). */
export const resultText = (t: TFunction, code: ResultCode) => `${code} ${t(`operations.resultCodes.${code}`)}`;

const RESULT_COLORS: Partial<Record<ResultCode, string>> = { '00': 'success', '01': 'warning' };

/** The result code with its text, coloured: success green, partial success amber, anything else red. */
export function ResultTag({ code }: { code: ResultCode | null | undefined }) {
  const { t } = useTranslation();
  if (!code) return null;
  return (
    <Tag color={RESULT_COLORS[code] ?? 'error'} data-testid="result-code">
      {resultText(t, code)}
    </Tag>
  );
}

/** A value read, scaled by the head-end, with its unit (DLMS 'none' shows no unit). */
function itemText(item: CommandRecord['items'][number], t: TFunction): string {
  const value =
    item.value === undefined || item.value === null
      ? item.code
        ? resultText(t, item.code)
        : ''
      : typeof item.value === 'object'
        ? JSON.stringify(item.value)
        : String(item.value);
  const unit = item.unit && item.unit !== 'none' ? ` ${item.unit}` : '';
  return `${item.description || item.obis}: ${value}${unit}`;
}

export type CommandField =
  | 'deviceKey'
  | 'operation'
  | 'requestedBy'
  | 'createTime'
  | 'state'
  | 'resultCode'
  | 'items'
  | 'attempts'
  | 'answerTime';

const WIDTHS: Partial<Record<CommandField, number>> = {
  deviceKey: 150,
  requestedBy: 120,
  createTime: 170,
  answerTime: 170,
  state: 170,
  resultCode: 170,
};

/** Columns of command records (a plan's results, a meter's history), each labelled `operations.fields.<field>`. */
export function commandColumns(t: TFunction, fields: readonly CommandField[]): TableColumnsType<ResultRow> {
  const cell = (field: CommandField, row: ResultRow) => {
    switch (field) {
      case 'operation':
        return row.operation ? t(`operations.names.${row.operation}`) : '';
      case 'state':
        return t(`operations.commandStates.${row.state}`);
      case 'resultCode':
        return <ResultTag code={row.resultCode} />;
      case 'createTime':
      case 'answerTime':
        return row[field] ? formatDateTime(row[field]) : '';
      case 'items':
        return (row.items ?? []).map((item) => (
          <div key={item.obis} data-testid="command-item">
            {itemText(item, t)}
          </div>
        ));
      case 'attempts':
        return (row.attempts ?? []).map((attempt) => (
          <div key={attempt.attempt}>
            {t('operations.screen.attempt', {
              attempt: attempt.attempt,
              sentAt: formatDateTime(attempt.sentAt),
              result: attempt.code ? resultText(t, attempt.code) : t('operations.screen.waiting'),
            })}
          </div>
        ));
      default:
        return row[field] ?? '';
    }
  };
  return fields.map((field) => ({
    key: field,
    title: t(`operations.fields.${field}`),
    width: WIDTHS[field],
    render: (_: unknown, row: ResultRow) => <span data-testid={`cell-${field}`}>{cell(field, row)}</span>,
  }));
}
