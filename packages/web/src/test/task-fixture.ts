import type { Task, Template } from '@meterdesk/contracts';

export const TASK_ID = 'b'.repeat(32);
export const TEMPLATE_ID = 'c'.repeat(32);

/** A collection task as /task/detail and /task/list answer it. */
export const task = (extra: Partial<Task> = {}): Task => ({
  id: TASK_ID,
  planName: 'Daily profile',
  planTempName: 'Daily',
  templateId: TEMPLATE_ID,
  planStatus: 'waiting',
  enabled: true,
  nextRunAt: '2030-01-02T00:15:00.000Z',
  executedCount: 0,
  count: 30,
  starttime: '2030-01-02T00:15:00.000Z',
  freq: 1,
  unit: 'day',
  repairFreq: 1,
  repairUnit: 'hour',
  repairCount: 4,
  pri: 3,
  timeout: 30,
  concurrent: 4,
  itemType: 0,
  devList: ['M0001'],
  devParams: {},
  items: ['loadProfile'],
  orders: [{ cgcode: 'loadProfile', cmd: 'collect' }],
  deviceCount: 1,
  createdBy: 'admin',
  createTime: '2029-12-01T00:00:00.000Z',
  updateTime: '2029-12-01T00:00:00.000Z',
  ...extra,
});

/** The task's template as /plantemplate/list answers it. */
export const template = (extra: Partial<Template> = {}): Template => ({
  id: TEMPLATE_ID,
  templateName: 'Daily',
  items: ['loadProfile'],
  cycleValue: 0,
  cycleFreq: 'minute',
  devParams: {},
  remark: '',
  createdBy: 'admin',
  createTime: '2029-12-01T00:00:00.000Z',
  updateTime: '2029-12-01T00:00:00.000Z',
  ...extra,
});
