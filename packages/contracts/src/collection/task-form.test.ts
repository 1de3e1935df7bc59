import { describe, expect, it } from 'vitest';
import { PlanCreateSchema } from '../operations/plan.api';
import {
  splitDevices,
  TASK_FORM_DEFAULTS,
  type TaskForm,
  taskFormField,
  taskFormIssues,
  taskPlanBody,
} from './task-form';

const NOW = new Date('2026-11-25T10:00:00Z');
const form = (extra: Partial<TaskForm> = {}): TaskForm => ({
  ...TASK_FORM_DEFAULTS,
  planName: ' Daily ',
  templateId: 'a'.repeat(32),
  starttime: '2026-11-26T00:15:00.000Z',
  ...extra,
});
const template = {
  templateName: 'Daily profile',
  items: ['loadProfile', 'dailyFrozen'],
  cycleValue: 15,
  cycleFreq: 'minute' as const,
};

describe('the task form', () => {
  it('splits serials on Chinese or English commas, semicolons, spaces and line breaks, once each', () => {
    expect(splitDevices('M1, M2，M3\nM4;M5 M1')).toEqual(['M1', 'M2', 'M3', 'M4', 'M5']);
    expect(splitDevices('  ')).toEqual([]);
  });

  it('checks the spec §5 schedule rules before the server does', () => {
    expect(taskFormIssues(form(), NOW)).toEqual([]);
    expect(taskFormIssues(form({ starttime: '2026-11-25T10:00:00.000Z' }), NOW)).toEqual([
      { field: 'starttime', key: 'startTimeNotFuture' },
    ]);
    // A start already past is kept when editing a task that has run.
    expect(taskFormIssues(form({ starttime: '2026-11-20T00:00:00.000Z' }), NOW, { startChanged: false })).toEqual([]);
    expect(taskFormIssues(form({ freq: 4, unit: 'minute' }), NOW)).toEqual([
      { field: 'freq', key: 'taskFrequencyTooShort' },
    ]);
    expect(taskFormIssues(form({ freq: 0, count: 2 }), NOW)).toEqual([{ field: 'freq', key: 'taskFrequencyTooShort' }]);
    expect(
      taskFormIssues(form({ freq: 1, unit: 'hour', repairFreq: 20, repairUnit: 'minute', repairCount: 4 }), NOW),
    ).toEqual([{ field: 'repairFreq', key: 'repairSpanTooLong' }]);
    expect(taskFormIssues(form({ freq: 0, count: 1 }), NOW)).toEqual([]);
  });

  it('makes the createplan body the server takes: orders from the template, empty filters dropped', () => {
    const body = taskPlanBody(
      form({ devList: 'M1,M2', devParams: { group3: '', models: [], is_major_consumer: false, tariff_item_id: 'T1' } }),
      template,
    );
    expect(body).toMatchObject({
      planName: 'Daily',
      planTempName: 'Daily profile',
      devs: { itemType: 0, devList: ['M1', 'M2'], devParams: { tariff_item_id: 'T1' } },
      crontab: {
        starttime: Date.parse('2026-11-26T00:15:00Z') / 1000,
        freq: 1,
        unit: 'day',
        count: 30,
        repairConf: { repairFreq: 1, repairUnit: 'hour', repairCount: 4 },
      },
      orders: [
        {
          cgcode: 'loadProfile',
          cmd: 'collect',
          isCyclePlan: true,
          cycleConf: { cycleValue: 15, cycleFreq: 'minute' },
        },
        { cgcode: 'dailyFrozen', cmd: 'collect' },
      ],
    });
    expect(PlanCreateSchema.safeParse(body).success).toBe(true);
    // No serials: the filters choose the meters, even none (every meter of the caller's grid nodes).
    expect(taskPlanBody(form(), template).devs).toEqual({ itemType: 0, devList: [], devParams: {} });
    expect(taskPlanBody(form({ repairCount: 0 }), template).crontab).not.toHaveProperty('repairConf');
  });

  it('puts a server refusal on the form field it concerns', () => {
    expect(taskFormField('crontab.starttime')).toBe('starttime');
    expect(taskFormField('crontab.repairConf')).toBe('repairFreq');
    expect(taskFormField('devs')).toBe('devList');
    expect(taskFormField('devs.devParams.grid_ids')).toBe('devParams.grid_ids');
    expect(taskFormField('orders.1.cgcode')).toBe('templateId');
    expect(taskFormField('planName')).toBe('planName');
  });
});
