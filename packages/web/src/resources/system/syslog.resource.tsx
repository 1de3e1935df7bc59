import { syslogApi, systemLogEntity } from '@meterdesk/contracts';
import { defineCrud } from '@/crud/crud-config';
import { createCrudPages } from '@/crud/crud-pages';

export const syslogCrud = defineCrud({
  entity: systemLogEntity,
  operations: { list: syslogApi.listsystemlog, exportFile: syslogApi.exportsystemlog },
  timeRange: {
    label: 'syslog.timeRange',
    startKey: 'startTime',
    endKey: 'endTime',
    maxDays: syslogApi.MAX_LOG_RANGE_DAYS,
  },
  singleLineRows: true,
});

export const syslogPages = createCrudPages(syslogCrud);
