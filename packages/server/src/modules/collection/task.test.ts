import {
  nextOccurrence,
  OPERATION_RESOURCES,
  type Page,
  PLAN_RES,
  type Task,
  type Template,
} from '@meterdesk/contracts';
import { and, eq, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plan, sysLog } from '../../db/schema';
import { gridNode, meterAt, userOfGrid } from '../../test/archive-fixtures';
import { createTestApp, type TestApp } from '../../test/harness';
import { uniqueName } from '../../test/unique';

const TASK = '/serviceRequest/scheduledTask/taskMGT';
const TEMPLATE = '/serviceRequest/scheduledTask/templateMGT';
const ALL_TASK_BUTTONS = [
  TASK,
  `${TASK}/add`,
  `${TASK}/edit`,
  `${TASK}/view`,
  `${TASK}/delete`,
  `${TASK}/enable`,
  `${TASK}/pause`,
  `${TASK}/export`,
  TEMPLATE,
  `${TEMPLATE}/add`,
  `${TEMPLATE}/edit`,
  `${TEMPLATE}/detail`,
  `${TEMPLATE}/delete`,
];
const HOUR = 3600;

let t: TestApp;
let gridId: string;
let otherGrid: string;
let operator: string;
let outsider: string;
let meters: string[];
let foreignMeter: string;
let templateName: string;

/** A start time `hours` ahead, on a whole minute (unix seconds). */
const ahead = (hours: number) => Math.floor(Date.now() / 60_000) * 60 + Math.round(hours * HOUR);

beforeAll(async () => {
  t = await createTestApp();
  gridId = await gridNode(t);
  otherGrid = await gridNode(t);
  operator = await userOfGrid(t, gridId, ALL_TASK_BUTTONS);
  outsider = await userOfGrid(t, otherGrid, [...ALL_TASK_BUTTONS, ...OPERATION_RESOURCES, PLAN_RES.approve]);
  meters = [(await meterAt(t, gridId)).devAddr, (await meterAt(t, gridId)).devAddr];
  foreignMeter = (await meterAt(t, otherGrid)).devAddr;
  templateName = uniqueName('daily');
  const res = await t.call('/plantemplate/save', { templateName, items: ['loadProfile', 'dailyFrozen'] }, operator);
  expect(res.status).toBe(200);
});
afterAll(() => t?.close());

interface TaskBody {
  planName?: string;
  planTempName?: string;
  devs?: object;
  crontab?: object;
  orders?: object[];
  [key: string]: unknown;
}

/** Each default task starts a minute after the last: one template's live tasks never share a start time. */
let minutes = 0;

/** A daily task of the test's template on the test's meters, starting in about `start` hours; `extra` overrides. */
const taskBody = (extra: TaskBody = {}, start = 2): TaskBody => ({
  planName: uniqueName('task'),
  planTempName: templateName,
  devs: { itemType: 0, devList: meters },
  crontab: { starttime: ahead(start) + 60 * ++minutes, freq: 1, unit: 'day', count: 30 },
  orders: [
    { cgcode: 'loadProfile', cmd: 'collect' },
    { cgcode: 'dailyFrozen', cmd: 'collect' },
  ],
  pri: 3,
  ...extra,
});

const create = (body: TaskBody, cookie = operator) =>
  t.call<{ planid: string; planStatus: string; jobId: string | null }>('/plan/createplan', body, cookie);
const detail = (planid: string, cookie = operator) => t.call<Task>('/task/detail', { id: planid }, cookie);
const issueOf = (res: { body: { data: unknown } }) => (res.body.data as { issues: object[] }).issues[0];

async function made(extra: TaskBody = {}, start = 2): Promise<Task> {
  const res = await create(taskBody(extra, start));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (await detail(res.body.data.planid)).body.data;
}

describe('templateMGT', () => {
  it('adds a template of collection items read periodically and shows it', async () => {
    const name = uniqueName('tpl');
    const saved = await t.call<{ id: string }>(
      '/plantemplate/save',
      { templateName: name, items: ['monthlyFrozen'], cycleValue: 15, cycleFreq: 'minute', devParams: { group3: '2' } },
      operator,
    );
    expect(saved.status).toBe(200);
    const shown = await t.call<Template>('/plantemplate/detail', { id: saved.body.data.id }, operator);
    expect(shown.body.data).toMatchObject({
      templateName: name,
      items: ['monthlyFrozen'],
      cycleValue: 15,
      cycleFreq: 'minute',
      devParams: { group3: '2' },
    });
    const list = await t.call<Page<Template>>('/plantemplate/list', { templateName: name }, operator);
    expect(list.body.data.list.map((r) => r.templateName)).toEqual([name]);
  });

  it("refuses a taken name with 'Template name existed' and an item not read periodically, naming it", async () => {
    const taken = await t.call(
      '/plantemplate/save',
      { templateName: templateName.toUpperCase(), items: ['loadProfile'] },
      operator,
    );
    expect(taken.status).toBe(409);
    expect(issueOf(taken)).toMatchObject({ field: 'templateName', message: 'Template name existed' });
    const check = await t.call<{ existed: boolean }>(
      '/plantemplate/check',
      { field: 'templateName', value: templateName },
      operator,
    );
    expect(check.body.data.existed).toBe(true);
    const bad = await t.call(
      '/plantemplate/save',
      { templateName: uniqueName('tpl'), items: ['loadProfile', 'serialNumber'] },
      operator,
    );
    expect(bad.status).toBe(400);
    expect(issueOf(bad)).toMatchObject({ field: 'items.1', key: 'collectItemUnknown' });
    // A register read periodically is a real item, but no run reads it: refused, not kept and skipped.
    const register = await t.call(
      '/plantemplate/save',
      { templateName: uniqueName('tpl'), items: ['loadProfile', 'activeImport'] },
      operator,
    );
    expect(register.status).toBe(400);
    expect(issueOf(register)).toMatchObject({ field: 'items.1', key: 'collectItemNotProfile' });
  });

  it('keeps a template a live task uses; once the task is deleted it can go', async () => {
    const name = uniqueName('tpl');
    const saved = await t.call<{ id: string }>(
      '/plantemplate/save',
      { templateName: name, items: ['eventLog'] },
      operator,
    );
    const task = await made({ planTempName: name, orders: [{ cgcode: 'eventLog', cmd: 'collect' }] });
    const refused = await t.call<{ deleted: number; failures: { key: string }[] }>(
      '/plantemplate/delete',
      { ids: [saved.body.data.id] },
      operator,
    );
    expect(refused.body.data).toMatchObject({ deleted: 0, failures: [{ key: 'templateInUse' }] });
    expect((await t.call('/plan/deleteplan', { planid: task.id, planName: task.planName }, operator)).status).toBe(200);
    const gone = await t.call<{ deleted: number }>('/plantemplate/delete', { ids: [saved.body.data.id] }, operator);
    expect(gone.body.data.deleted).toBe(1);
  });
});

describe('taskMGT: createplan', () => {
  it('creates an enabled waiting task due at its start time, with the template and device count', async () => {
    const start = ahead(3);
    const task = await made({ crontab: { starttime: start, freq: 1, unit: 'day', count: 30 } });
    expect(task).toMatchObject({
      planTempName: templateName,
      planStatus: 'waiting',
      enabled: true,
      executedCount: 0,
      count: 30,
      deviceCount: 2,
      items: ['loadProfile', 'dailyFrozen'],
      nextRunAt: new Date(start * 1000).toISOString(),
    });
    const [row] = await t.db.select().from(plan).where(eq(plan.id, task.id));
    expect(row).toMatchObject({ kind: 'collection', nextRunAt: new Date(start * 1000) });
  });

  it.each([
    [
      'a start time not later than now',
      { crontab: { starttime: ahead(-1), freq: 1, unit: 'day', count: 3 } },
      'crontab.starttime',
      'startTimeNotFuture',
      'The start time must be later than now',
    ],
    [
      'a frequency under 5 minutes',
      { crontab: { starttime: ahead(2), freq: 4, unit: 'minute', count: 3 } },
      'crontab.freq',
      'taskFrequencyTooShort',
      'The frequency cannot be under 5 minutes',
    ],
    [
      'a recurring task without frequency',
      { crontab: { starttime: ahead(2), freq: 0, unit: 'day', count: 3 } },
      'crontab.freq',
      'taskFrequencyTooShort',
      'The frequency cannot be under 5 minutes',
    ],
    [
      'a compensation duration above the task period',
      {
        crontab: {
          starttime: ahead(2),
          freq: 1,
          unit: 'hour',
          count: 3,
          repairConf: { repairFreq: 20, repairUnit: 'minute', repairCount: 4 },
        },
      },
      'crontab.repairConf',
      'repairSpanTooLong',
      'The compensation duration cannot be longer than the task period',
    ],
    ['no schedule', { crontab: undefined }, 'crontab', 'mandatory', 'This part is mandatory'],
    [
      'an item not read periodically',
      { orders: [{ cgcode: 'serialNumber', cmd: 'collect' }] },
      'orders.0.cgcode',
      'collectItemUnknown',
      'Not a collection item read periodically',
    ],
    [
      'an unknown item',
      {
        orders: [
          { cgcode: 'loadProfile', cmd: 'collect' },
          { cgcode: 'nothing', cmd: 'collect' },
        ],
      },
      'orders.1.cgcode',
      'collectItemUnknown',
      'Not a collection item read periodically',
    ],
    [
      'a collection order without its item',
      { orders: [{ cgcode: '', cmd: 'collect' }] },
      'orders.0.cgcode',
      'collectItemMissing',
      'A collection order needs its collection item',
    ],
    [
      'an operation mixed into a task',
      { orders: [{ cgcode: 'loadProfile', cmd: 'collect' }, { cmd: 'read' }] },
      'orders.1.cmd',
      'invalidValue',
      'Invalid value',
    ],
    [
      'an unknown template',
      { planTempName: 'no such template' },
      'planTempName',
      'templateNotFound',
      'The template does not exist',
    ],
    [
      'a device set matching nothing',
      { devs: { itemType: 0, devParams: { tariff_item_id: 'none-such' } } },
      'devs',
      'taskDevicesNone',
      'The device set matches no meter',
    ],
    ['no devices at all', { devs: { itemType: 0 } }, 'devs.devList', 'mandatory', 'This part is mandatory'],
  ])('refuses %s, naming the field', async (_what, extra, field, key, message) => {
    const res = await create(taskBody(extra as TaskBody));
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(issueOf(res)).toMatchObject({ field, key, message });
  });

  it("refuses a taken name with 'Task name existed', case-insensitively, until that task is deleted", async () => {
    const first = await made();
    const again = await create(taskBody({ planName: first.planName.toUpperCase() }, 5));
    expect(again.status).toBe(409);
    expect(issueOf(again)).toMatchObject({ field: 'planName', message: 'Task name existed' });
    expect(
      (await t.call<{ existed: boolean }>('/task/check', { field: 'planName', value: first.planName }, operator)).body
        .data.existed,
    ).toBe(true);
    await t.call('/plan/deleteplan', { planid: first.id, planName: first.planName }, operator);
    expect((await create(taskBody({ planName: first.planName }, 5))).status).toBe(200);
  });

  it('refuses a second live task of one template at the same start time', async () => {
    const start = ahead(7);
    const crontab = { starttime: start, freq: 1, unit: 'day', count: 2 };
    await made({ crontab });
    const clash = await create(taskBody({ crontab }));
    expect(clash.status).toBe(400);
    expect(issueOf(clash)).toMatchObject({
      field: 'crontab.starttime',
      message: 'A task of this template already starts at this time',
    });
    expect((await create(taskBody({ crontab: { ...crontab, starttime: start + 60 } }))).status).toBe(200);
  });

  it('answers the task it already made for the same reqId', async () => {
    const reqId = uniqueName('req');
    const body = taskBody({ reqId });
    const first = await create(body);
    const second = await create(body);
    expect(second.body.data.planid).toBe(first.body.data.planid);
  });

  it('keeps a device set within the caller grid scope: its nodes stored, a foreign device 404, a foreign node refused', async () => {
    const byFilter = await made({ devs: { itemType: 0, devParams: {} } });
    // The operator's grid holds this test's meters (and those other tests add to it): not the foreign one.
    const [row] = await t.db.select().from(plan).where(eq(plan.id, byFilter.id));
    expect(row?.devs).toMatchObject({ devParams: { grid_ids: [gridId] } });
    expect(byFilter.deviceCount).toBeGreaterThanOrEqual(2);
    const foreign = await create(taskBody({ devs: { itemType: 0, devList: [meters[0], foreignMeter] } }));
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ msg: 'deviceNotFound', data: { devices: [foreignMeter] } });
    const foreignGrid = await create(taskBody({ devs: { itemType: 0, devParams: { grid_ids: [otherGrid] } } }));
    expect(foreignGrid.status).toBe(400);
    expect(issueOf(foreignGrid)).toMatchObject({ field: 'devs.devParams.grid_ids', key: 'gridNotFound' });
  });

  it('keeps a task out of reach of a user of another grid (404 on every call, not listed)', async () => {
    // Chosen by filters, the task names no device the plan calls could check the caller's scope by.
    const task = await made({ devs: { itemType: 0, devParams: {} } });
    expect((await detail(task.id, outsider)).status).toBe(404);
    const calls = [
      '/task/enable',
      '/task/disable',
      '/task/pause',
      '/plan/detail',
      '/plan/results',
      '/plan/export',
      '/plan/runs',
      '/plan/approve',
      '/plan/reject',
      '/plan/retry',
      '/plan/deleteplan',
    ];
    for (const path of calls) expect((await t.call(path, { planid: task.id }, outsider)).status, path).toBe(404);
    const update = await t.call('/plan/updateplan', { ...taskBody(), planid: task.id }, outsider);
    expect(update.status).toBe(404);
    const listed = await t.call<Page<Task>>('/task/list', { planName: task.planName }, outsider);
    expect(listed.body.data.total).toBe(0);
  });
});

describe('taskMGT: states and next run', () => {
  const state = async (planid: string) => {
    const [row] = await t.db.select().from(plan).where(eq(plan.id, planid));
    return { planStatus: row?.planStatus, enabled: row?.enabled, nextRunAt: row?.nextRunAt?.toISOString() ?? null };
  };

  it('disable clears the next run, enable sets it to the next occurrence not yet executed', async () => {
    const start = ahead(4);
    const task = await made({ crontab: { starttime: start, freq: 6, unit: 'hour', count: 10 } });
    const off = await t.call('/task/disable', { planid: task.id }, operator);
    expect(off.body.data).toEqual({ planStatus: 'waiting', enabled: false, nextRunAt: null });
    expect(await state(task.id)).toMatchObject({ enabled: false, nextRunAt: null });
    // The runs job advances the count as it records runs: enable resumes after the third.
    await t.db.update(plan).set({ executedCount: 3 }).where(eq(plan.id, task.id));
    const on = await t.call('/task/enable', { planid: task.id }, operator);
    const third = nextOccurrence({ starttime: start, freq: 6, unit: 'hour', count: 10 }, 3)?.toISOString();
    expect(on.body.data).toEqual({ planStatus: 'waiting', enabled: true, nextRunAt: third });
    expect(await state(task.id)).toMatchObject({ enabled: true, nextRunAt: third });
  });

  it('pause clears the next run and resume restores it; resuming a task not paused is refused', async () => {
    const start = ahead(5);
    const task = await made({ crontab: { starttime: start, freq: 1, unit: 'day', count: 3 } });
    const notPaused = await t.call('/task/resume', { planid: task.id }, operator);
    expect(notPaused.body).toMatchObject({ code: 400, msg: 'taskNotPaused' });
    expect((await t.call('/task/pause', { planid: task.id }, operator)).body.data).toEqual({
      planStatus: 'paused',
      enabled: true,
      nextRunAt: null,
    });
    expect((await detail(task.id)).body.data).toMatchObject({ planStatus: 'paused', nextRunAt: null });
    expect((await t.call('/task/resume', { planid: task.id }, operator)).body.data).toEqual({
      planStatus: 'waiting',
      enabled: true,
      nextRunAt: new Date(start * 1000).toISOString(),
    });
    await t.call('/task/disable', { planid: task.id }, operator);
    expect((await t.call('/task/pause', { planid: task.id }, operator)).body).toMatchObject({ msg: 'taskNotEnabled' });
  });

  it('a task whose runs are all executed finishes when enabled, and cannot be enabled again', async () => {
    const task = await made({ crontab: { starttime: ahead(6), freq: 1, unit: 'day', count: 2 } });
    await t.call('/task/disable', { planid: task.id }, operator);
    await t.db.update(plan).set({ executedCount: 2 }).where(eq(plan.id, task.id));
    expect((await t.call('/task/enable', { planid: task.id }, operator)).body.data).toEqual({
      planStatus: 'finished',
      enabled: true,
      nextRunAt: null,
    });
    expect((await t.call('/task/enable', { planid: task.id }, operator)).body).toMatchObject({ msg: 'taskFinished' });
  });

  it('deleteplan deletes logically: no next run, out of the list, 404 after', async () => {
    const task = await made();
    expect((await t.call('/plan/deleteplan', { planid: task.id, planName: task.planName }, operator)).status).toBe(200);
    expect(await state(task.id)).toEqual({ planStatus: 'deleted', enabled: false, nextRunAt: null });
    expect((await detail(task.id)).status).toBe(404);
    expect((await t.call<Page<Task>>('/task/list', { planName: task.planName }, operator)).body.data.total).toBe(0);
    const asked = await t.call<Page<Task>>('/task/list', { planName: task.planName, planStatus: 'deleted' }, operator);
    expect(asked.body.data.total).toBe(1);
  });

  it('writes every state change to the operation log', async () => {
    const task = await made();
    for (const path of ['/task/disable', '/task/enable', '/task/pause', '/task/resume'])
      expect((await t.call(path, { planid: task.id }, operator)).status).toBe(200);
    await t.call('/plan/deleteplan', { planid: task.id, planName: task.planName }, operator);
    const logged = await t.db
      .select({ url: sysLog.requestUrl, type: sysLog.operatingType })
      .from(sysLog)
      .where(and(eq(sysLog.logType, 'operation'), like(sysLog.content, `%${task.id}%`)));
    expect(logged.map((r) => r.url.replace(/^\/apis/, '')).sort()).toEqual([
      '/plan/deleteplan',
      '/task/disable',
      '/task/enable',
      '/task/pause',
      '/task/resume',
    ]);
  });
});

describe('taskMGT: updateplan', () => {
  it('refuses to modify an enabled task; once disabled it takes the change and keeps it disabled', async () => {
    const task = await made();
    const body = { ...taskBody({ planName: task.planName, pri: 7 }), planid: task.id };
    const refused = await t.call('/plan/updateplan', body, operator);
    expect(refused.body).toMatchObject({ code: 400, msg: 'taskEnabled' });
    await t.call('/task/disable', { planid: task.id }, operator);
    const done = await t.call('/plan/updateplan', body, operator);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect((await detail(task.id)).body.data).toMatchObject({ pri: 7, enabled: false, nextRunAt: null });
  });

  it('refuses an expected count below the executed count, and keeps the rules of a new start time', async () => {
    const task = await made({ crontab: { starttime: ahead(8), freq: 1, unit: 'day', count: 10 } });
    await t.call('/task/disable', { planid: task.id }, operator);
    await t.db.update(plan).set({ executedCount: 4 }).where(eq(plan.id, task.id));
    const starttime = Date.parse(task.starttime ?? '') / 1000;
    const below = await t.call(
      '/plan/updateplan',
      {
        ...taskBody({ planName: task.planName, crontab: { starttime, freq: 1, unit: 'day', count: 3 } }),
        planid: task.id,
      },
      operator,
    );
    expect(below.status).toBe(400);
    expect(issueOf(below)).toMatchObject({
      field: 'crontab.count',
      message: 'The expected execution count cannot be below the executed count',
    });
    const past = await t.call(
      '/plan/updateplan',
      {
        ...taskBody({ planName: task.planName, crontab: { starttime: ahead(-2), freq: 1, unit: 'day', count: 10 } }),
        planid: task.id,
      },
      operator,
    );
    expect(issueOf(past)).toMatchObject({ field: 'crontab.starttime', key: 'startTimeNotFuture' });
  });
});

describe('taskMGT: list and export', () => {
  it('lists tasks with filters, sorting and paging, and exports them', async () => {
    const prefix = uniqueName('listed');
    const a = await made({ planName: `${prefix}-a`, pri: 2 });
    const b = await made({ planName: `${prefix}-b`, pri: 8 }, 9);
    await t.call('/task/pause', { planid: b.id }, operator);
    const byPri = await t.call<Page<Task>>(
      '/task/list',
      { planName: prefix, sortField: 'pri', sortOrder: 'descend', pageSize: 1, curPage: 1 },
      operator,
    );
    expect(byPri.body.data).toMatchObject({ total: 2, list: [{ id: b.id }] });
    const paused = await t.call<Page<Task>>('/task/list', { planName: prefix, planStatus: 'paused' }, operator);
    expect(paused.body.data.list.map((r) => r.id)).toEqual([b.id]);
    const enabled = await t.call<Page<Task>>('/task/list', { planName: prefix, enabled: true }, operator);
    expect(enabled.body.data.total).toBe(2);
    const bad = await t.call('/task/list', { sortField: 'devList' }, operator);
    expect(bad.status).toBe(400);
    const file = await t.app.http.inject({
      method: 'POST',
      url: '/apis/task/export',
      payload: { planName: prefix },
      headers: { cookie: operator },
    });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toContain('spreadsheet');
    expect(a.planName).toContain(prefix);
  });

  it('refuses the task calls to a user without their buttons', async () => {
    const viewer = await userOfGrid(t, gridId, [TASK]);
    expect((await create(taskBody(), viewer)).status).toBe(403);
    const task = await made();
    expect((await t.call('/task/disable', { planid: task.id }, viewer)).status).toBe(403);
    expect((await t.call('/task/list', {}, viewer)).status).toBe(200);
  });
});
