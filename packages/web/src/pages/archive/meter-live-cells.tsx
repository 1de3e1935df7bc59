import { Tag, Typography } from 'antd';
import { useTranslation } from 'react-i18next';
import type { FieldCell } from '@/crud/crud-config';
import { fieldText } from '@/fields/field-value';

const RELAY_COLORS: Record<number, string> = { 0: 'red', 1: 'green', 2: 'orange' };

/**
 * A meter's online state as a tag (test id `online-<serial>`), so a dark area stands out in the list. A
 * virtual meter has no link of its own: it says so instead (`virtual-<serial>`).
 */
export const LinkStateCell: FieldCell = ({ row, value, field }) => {
  const { t } = useTranslation();
  if (row.virtual === true)
    return (
      <Tag color="purple" data-testid={`virtual-${String(row.devAddr)}`}>
        {t('virtualMeter.tag')}
      </Tag>
    );
  return (
    <Tag
      color={value === 'online' ? 'green' : 'default'}
      data-testid={`online-${String(row.devAddr)}`}
      data-state={String(value)}
    >
      {fieldText(field, value, t)}
    </Tag>
  );
};

/**
 * The main relay: an open one (a consumer without supply) in red; never learnt, 'Unknown' muted, so the
 * column above a bare last reading still says what it is about.
 */
export const RelayStateCell: FieldCell = ({ row, value, field }) => {
  const { t } = useTranslation();
  if (typeof value !== 'number')
    return (
      <Typography.Text type="secondary" data-testid={`relay-${String(row.devAddr)}`} data-state="unknown">
        {t('liveState.relayUnknown')}
      </Typography.Text>
    );
  return (
    <Tag color={RELAY_COLORS[value]} data-testid={`relay-${String(row.devAddr)}`}>
      {fieldText(field, value, t)}
    </Tag>
  );
};
