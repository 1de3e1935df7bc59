import {
  COLLECT_CMD,
  COMMAND_OPERATIONS,
  type CommandRecord,
  type Page,
  type Plan,
  RESULT_CODES,
} from '@meterdesk/contracts';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { dcu, deviceCommand, plan, sysLog } from '../../db/schema';
import { exportedRows, gridNode, meterAt, suppliedMeter, userOfGrid } from '../../test/archive-fixtures';
import { EVENTUALLY } from '../../test/constants';
import { createTestApp, type TestApp } from '../../test/harness';
import { type Answer, headEndOnline, scriptedDevice } from '../../test/scripted-device';

const BATCH = '/serviceRequest/batchOperation';
const ALL_BUTTONS = [
  '/parameterSetting/dcuOperating/execute',
  `${BATCH}/relayDisconnect`,
  `${BATCH}/relayConnect`,
  `${BATCH}/externalRelayDisconnect`,
  `${BATCH}/clockSync`,
  `${BATCH}/read`,
  `${BATCH}/paramSync`,
];

let t: TestApp;
let gridId: string;
let operator: string;

beforeAll(async () => {
  t = await createTestApp({ disconnectApprovalThreshold: 2, disconnectStaggerPerSecond: 20 }, { headEnd: true });
  gridId = await gridNode(t);
  operator = await userOfGrid(t, gridId, ALL_BUTTONS);
});
afterAll(() => t?.close());

/** An online meter in the test's grid, answered by a scripted device. */
async function onlineMeter(answers: Answer[] = [], options: { protected?: boolean } = {}) {
  const m = await suppliedMeter(t, gridId, options);
  const device = await scriptedDevice(t.broker, 'meter', m.devAddr, answers);
  await device.setOnline(true);
  await expect.poll(() => headEndOnline(t.app.headEnd, 'meter', m.devAddr), EVENTUALLY).toBe(true);
  return { ...m, device };
}

const run = (cookie: string, cmd: string, devList: string[], params: object = {}, extra: object = {}) =>
  t.call<{ planid: string; planStatus: string; jobId: string | null }>(
    '/plan/createplan',
    { planName: `test ${cmd}`, devs: { itemType: 0, devList }, orders: [{ cmd, params }], ...extra },
    cookie,
  );

async function finished(cookie: string, planid: string): Promise<Plan> {
  await expect
    .poll(async () => (await t.call<Plan>('/plan/detail', { planid }, cookie)).body.data.planStatus, {
      timeout: 60_000,
      interval: 100,
    })
    .toBe('finished');
  return (await t.call<Plan>('/plan/detail', { planid }, cookie)).body.data;
}

const results = async (cookie: string, planid: string) =>
  (await t.call<Page<CommandRecord>>('/plan/results', { planid }, cookie)).body.data.list;

describe('meter operations through the head-end', () => {
  it('disconnects an online meter: the command names the target state and the answer is recorded', async () => {
    const m = await onlineMeter();
    const res = await run(operator, 'relayDisconnect', [m.devAddr]);
    expect(res.status).toBe(200);
    // The device may have answered before the call returns.
    expect(['executing', 'finished']).toContain(res.body.data.planStatus);
    const plan = await finished(operator, res.body.data.planid);
    expect(plan.byCode).toEqual({ '00': 1 });
    expect(m.device.received).toHaveLength(1);
    expect(m.device.received[0]).toMatchObject({
      op: 'action',
      attempt: 1,
      items: [{ obis: '0-0:96.3.10.255', classId: 70, attribute: 1 }],
    });
    const [record] = await results(operator, res.body.data.planid);
    expect(record).toMatchObject({
      deviceKey: m.devAddr,
      state: 'done',
      resultCode: '00',
      requestedBy: expect.any(String),
    });
    expect(record?.attempts).toEqual([expect.objectContaining({ attempt: 1, code: '00' })]);
    // The device's answer lands in the operation log under the device's name, before its plan ends.
    const logged = await t.db
      .select()
      .from(sysLog)
      .where(and(eq(sysLog.username, m.devAddr), eq(sysLog.actorKind, 'device')));
    expect(logged).toHaveLength(1);
  });

  it('refuses an offline meter with MThasOffline and sends nothing', async () => {
    const m = await onlineMeter();
    await m.device.setOnline(false);
    await expect.poll(() => headEndOnline(t.app.headEnd, 'meter', m.devAddr), EVENTUALLY).toBe(false);
    const res = await run(operator, 'relayConnect', [m.devAddr]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ msg: 'MThasOffline', data: { devices: [m.devAddr] } });
    expect(await t.db.select().from(deviceCommand).where(eq(deviceCommand.deviceKey, m.devAddr))).toHaveLength(0);
  });

  it('a meter that never answers ends with 99 after its retry', async () => {
    const m = await onlineMeter(['silent', 'silent']);
    const res = await run(operator, 'relayConnect', [m.devAddr], {}, { timeout: 5 });
    const plan = await finished(operator, res.body.data.planid);
    expect(plan.byCode).toEqual({ '99': 1 });
    const [record] = await results(operator, res.body.data.planid);
    expect(record?.attempts.map((a) => a.code)).toEqual(['99', '99']);
    // Both attempts carry the same reqId: a device that did act the first time acts once.
    expect(m.device.received.map((c) => c.reqId)).toEqual([record?.reqId, record?.reqId]);
    expect(m.device.received.map((c) => c.attempt)).toEqual([1, 2]);
  }, 60_000);

  it('a busy meter (91) is asked again after a pause and its success recorded', async () => {
    const m = await onlineMeter([RESULT_CODES.busy, RESULT_CODES.success]);
    const res = await run(operator, 'clockSync', [m.devAddr], { source: 'system' });
    const plan = await finished(operator, res.body.data.planid);
    expect(plan.byCode).toEqual({ '00': 1 });
    const [record] = await results(operator, res.body.data.planid);
    expect(record?.attempts.map((a) => a.code)).toEqual(['91', '00']);
    // The system time is taken when the command leaves.
    const sent = m.device.received[1]?.items[0]?.value as string;
    expect(Math.abs(Date.parse(sent) - Date.now())).toBeLessThan(60_000);
  });

  it('refuses a meter already executing the same operation with MTisExecute', async () => {
    const m = await onlineMeter(['silent']);
    const first = await run(operator, 'relayConnect', [m.devAddr], {}, { timeout: 30 });
    expect(first.status).toBe(200);
    const second = await run(operator, 'relayConnect', [m.devAddr]);
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({ msg: 'MTisExecute', data: { devices: [m.devAddr] } });
    await t.call('/plan/deleteplan', { planid: first.body.data.planid }, operator);
  });

  it('ignores malformed, foreign, unknown and duplicated replies and keeps working', async () => {
    const m = await onlineMeter([(command) => ({ reqId: command.reqId, code: '00', items: [] })]);
    const before = { ...t.app.headEnd.refused };
    await m.device.reply('not json at all');
    await m.device.reply({ reqId: newId(), code: '00' });
    const res = await run(operator, 'relayConnect', [m.devAddr]);
    await finished(operator, res.body.data.planid);
    const [record] = await results(operator, res.body.data.planid);
    await m.device.reply({ reqId: record?.reqId, code: '02' });
    const other = await onlineMeter();
    await other.device.reply({ reqId: record?.reqId, code: '02' });
    await expect.poll(() => t.app.headEnd.refused.duplicate - before.duplicate, EVENTUALLY).toBe(1);
    await expect.poll(() => t.app.headEnd.refused.foreignDevice - before.foreignDevice, EVENTUALLY).toBe(1);
    expect(t.app.headEnd.refused.malformed - before.malformed).toBeGreaterThanOrEqual(1);
    expect(t.app.headEnd.refused.unknownReqId - before.unknownReqId).toBeGreaterThanOrEqual(1);
    // The late '02' changed nothing.
    const [after] = await results(operator, res.body.data.planid);
    expect(after?.resultCode).toBe('00');
  });
});

describe('reading and DCU operations', () => {
  it('a real-time read answers the values scaled with their units', async () => {
    const m = await onlineMeter([
      (command) => ({
        reqId: command.reqId,
        code: '00',
        items: [
          { obis: '1-0:32.7.0.255', value: 2301 },
          { obis: '1-0:1.8.0.255', value: 1234567 },
        ],
      }),
    ]);
    const res = await run(
      operator,
      'read',
      [m.devAddr],
      { obis: ['1-0:32.7.0.255', '1-0:1.8.0.255'] },
      { planName: 'Real-time Metering Plan', pri: 5, pushType: 2, timeout: 30 },
    );
    expect(res.status).toBe(200);
    await finished(operator, res.body.data.planid);
    const [record] = await results(operator, res.body.data.planid);
    expect(record?.items).toEqual([
      expect.objectContaining({ obis: '1-0:32.7.0.255', raw: 2301, value: 230.1, unit: 'V' }),
      expect.objectContaining({ obis: '1-0:1.8.0.255', raw: 1234567, value: 1234567, unit: 'Wh' }),
    ]);
    expect(m.device.received[0]).toMatchObject({
      op: 'get',
      items: [
        { classId: 3, attribute: 2 },
        { classId: 3, attribute: 2 },
      ],
    });
  });

  it('sends a DCU a raw frame and keeps its answering frame; a frame that is not hex is refused', async () => {
    const dcuNo = `D${newId().slice(0, 10)}`.toUpperCase();
    await t.db.insert(dcu).values({ id: newId(), dcuNo, gridId });
    const device = await scriptedDevice(t.broker, 'dcu', dcuNo, [
      (command) => ({ reqId: command.reqId, code: '00', frame: `E5${command.frame}` }),
    ]);
    await device.setOnline(true);
    await expect.poll(() => headEndOnline(t.app.headEnd, 'dcu', dcuNo), EVENTUALLY).toBe(true);
    const dcuRun = (params: object) =>
      t.call<{ planid: string }>(
        '/plan/createplan',
        { planName: 'frame', devs: { itemType: 1, devList: [dcuNo] }, orders: [{ cmd: 'dcuFrame', params }] },
        operator,
      );
    const bad = await dcuRun({ frame: '68 ZZ 16' });
    expect(bad.status).toBe(400);
    expect(bad.body.data).toMatchObject({ issues: [{ field: 'orders.0.params.frame', key: 'hexFrame' }] });
    // A meter operation on a DCU is refused too.
    const mismatch = await t.call(
      '/plan/createplan',
      { planName: 'x', devs: { itemType: 1, devList: [dcuNo] }, orders: [{ cmd: 'relayConnect' }] },
      operator,
    );
    expect(mismatch.body.data).toMatchObject({ issues: [{ field: 'devs.itemType' }] });
    expect(device.received).toHaveLength(0);

    const good = await dcuRun({ frame: '68 a0 16' });
    expect(good.status).toBe(200);
    await finished(operator, good.body.data.planid);
    expect(device.received[0]).toMatchObject({ op: 'frame', frame: '68A016' });
    const [record] = await results(operator, good.body.data.planid);
    expect(record).toMatchObject({ deviceKind: 'dcu', deviceKey: dcuNo, resultCode: '00', frame: 'E568A016' });
  });
});

describe('what is refused before anything is sent', () => {
  it('names unknown meters and meters outside the caller’s grid scope alike', async () => {
    const elsewhere = await meterAt(t, await gridNode(t));
    const res = await run(operator, 'relayConnect', [elsewhere.devAddr, 'NOSUCHMETER1']);
    expect(res.status).toBe(400);
    expect(res.body.msg).toBe('deviceNotFound');
    expect((res.body.data as unknown as { devices: string[] }).devices.sort()).toEqual(
      [elsewhere.devAddr, 'NOSUCHMETER1'].sort(),
    );
  });

  it('refuses a meter that supplies no consumer (spec §5: the consumer and the meter must exist)', async () => {
    const m = await meterAt(t, gridId);
    const res = await run(operator, 'relayConnect', [m.devAddr]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ msg: 'consumerNotFound', data: { devices: [m.devAddr] } });
  });

  it('refuses an operation whose button the caller lacks with 403', async () => {
    const m = await onlineMeter();
    const clockOnly = await userOfGrid(t, gridId, [`${BATCH}/clockSync`]);
    const res = await run(clockOnly, 'relayDisconnect', [m.devAddr]);
    expect(res.status).toBe(403);
    expect(m.device.received).toHaveLength(0);
  });

  it('refuses more than 30 meters, an invalid custom time and a non-hex frame, naming the field', async () => {
    const many = Array.from({ length: 31 }, (_, i) => `M${i}`);
    const tooMany = await run(operator, 'clockSync', many);
    expect(tooMany.status).toBe(400);
    expect(JSON.stringify(tooMany.body.data)).toContain('devs.devList');
    const m = await onlineMeter();
    const badTime = await run(operator, 'clockSync', [m.devAddr], { source: 'custom', time: '2026-02-30T10:00:00Z' });
    expect(badTime.status).toBe(400);
    expect(JSON.stringify(badTime.body.data)).toContain('orders.0.params.time');
    const missingTime = await run(operator, 'clockSync', [m.devAddr], { source: 'custom' });
    expect(missingTime.status).toBe(400);
    expect(m.device.received).toHaveLength(0);
  });
});

describe('disconnect safeguards', () => {
  const protectedMeter = () => onlineMeter([], { protected: true });

  it('refuses to disconnect a protected consumer and names the meter', async () => {
    const m = await protectedMeter();
    const res = await run(operator, 'relayDisconnect', [m.devAddr]);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ msg: 'consumerProtected', data: { devices: [m.devAddr] } });
    expect(m.device.received).toHaveLength(0);
    // Connecting it stays possible.
    expect((await run(operator, 'relayConnect', [m.devAddr])).status).toBe(200);
  });

  it('holds a disconnect over the threshold until another user approves it, then sends it staggered', async () => {
    const requester = await userOfGrid(t, gridId, [...ALL_BUTTONS, `${BATCH}/approve`]);
    const approver = await userOfGrid(t, gridId, [`${BATCH}/approve`]);
    const meters = await Promise.all([onlineMeter(), onlineMeter(), onlineMeter()]);
    const res = await run(
      requester,
      'relayDisconnect',
      meters.map((m) => m.devAddr),
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ planStatus: 'pendingApproval', jobId: null });
    const planid = res.body.data.planid;
    expect(await t.db.select().from(deviceCommand).where(eq(deviceCommand.planId, planid))).toHaveLength(0);

    // Approvers of another grid neither see it nor reach it.
    const outsider = await userOfGrid(t, await gridNode(t), [`${BATCH}/approve`]);
    const pendingIds = async (cookie: string) =>
      (await t.call<Page<Plan>>('/plan/pending', {}, cookie)).body.data.list.map((p) => p.planid);
    expect(await pendingIds(approver)).toContain(planid);
    expect(await pendingIds(outsider)).not.toContain(planid);
    expect((await t.call('/plan/detail', { planid }, outsider)).status).toBe(404);
    expect((await t.call('/plan/approve', { planid }, outsider)).status).toBe(404);

    const self = await t.call('/plan/approve', { planid }, requester);
    expect(self.status).toBe(403);
    expect(self.body.msg).toBe('selfApproval');

    const approved = await t.call<{ planStatus: string; jobId: string }>('/plan/approve', { planid }, approver);
    expect(approved.status).toBe(200);
    expect(['executing', 'finished']).toContain(approved.body.data.planStatus);
    expect(approved.body.data.jobId).toEqual(expect.any(String));
    const plan = await finished(requester, planid);
    expect(plan).toMatchObject({ approvedBy: expect.any(String), byCode: { '00': 3 } });
    // Staggered: each command was due a little after the one before it.
    const rows = await t.db.select().from(deviceCommand).where(eq(deviceCommand.planId, planid));
    const due = rows.map((r) => r.notBefore.getTime()).sort((a, b) => a - b);
    expect(due[1]! - due[0]!).toBeGreaterThanOrEqual(40);
    expect(due[2]! - due[1]!).toBeGreaterThanOrEqual(40);
    for (const m of meters) expect(m.device.received).toHaveLength(1);
    // Approving twice is refused.
    expect((await t.call('/plan/approve', { planid }, approver)).body.msg).toBe('planNotPending');
  });

  describe('within the approval window (threshold 2)', () => {
    /** The window passes: every command so far was made longer ago than it reaches. */
    const windowPasses = async () => {
      const minutes = t.config.disconnectWindowMinutes;
      await t.db
        .update(deviceCommand)
        .set({ createTime: sql`${deviceCommand.createTime} - make_interval(mins => ${minutes})` });
    };
    beforeEach(windowPasses);

    const disconnect = (cookie: string, meters: { devAddr: string }[], cmd = 'relayDisconnect') =>
      run(
        cookie,
        cmd,
        meters.map((m) => m.devAddr),
      );
    const statusOf = (res: Awaited<ReturnType<typeof run>>) => {
      expect(res.status).toBe(200);
      return res.body.data.planStatus === 'finished' ? 'executing' : res.body.data.planStatus;
    };

    it('holds one user’s disconnects split under the threshold once the window’s total passes it', async () => {
      const [m1, m2, m3] = await Promise.all([onlineMeter(), onlineMeter(), onlineMeter()]);
      expect(statusOf(await disconnect(operator, [m1!]))).toBe('executing');
      // A meter counts once, whichever relay.
      expect(statusOf(await disconnect(operator, [m1!], 'externalRelayDisconnect'))).toBe('executing');
      expect(statusOf(await disconnect(operator, [m2!]))).toBe('executing');
      const held = await disconnect(operator, [m3!]);
      expect(statusOf(held)).toBe('pendingApproval');
      expect(held.body.data.jobId).toBeNull();
      expect(await t.db.select().from(deviceCommand).where(eq(deviceCommand.planId, held.body.data.planid))).toEqual(
        [],
      );
      // Connects are never held.
      expect(statusOf(await run(operator, 'relayConnect', [m3!.devAddr]))).toBe('executing');
    });

    it('holds the disconnect that takes two users’ disconnects together past the threshold', async () => {
      const other = await userOfGrid(t, gridId, ALL_BUTTONS);
      const [m1, m2, m3] = await Promise.all([onlineMeter(), onlineMeter(), onlineMeter()]);
      expect(statusOf(await disconnect(operator, [m1!]))).toBe('executing');
      expect(statusOf(await disconnect(other, [m2!, m3!]))).toBe('pendingApproval');
    });

    it('no longer counts disconnects older than the window', async () => {
      const [m1, m2, m3] = await Promise.all([onlineMeter(), onlineMeter(), onlineMeter()]);
      const first = await disconnect(operator, [m1!, m2!]);
      expect(statusOf(first)).toBe('executing');
      await finished(operator, first.body.data.planid);
      await windowPasses();
      expect(statusOf(await disconnect(operator, [m3!]))).toBe('executing');
      expect(statusOf(await disconnect(operator, [m1!, m2!]))).toBe('pendingApproval');
    });

    it('lets only one of two concurrent disconnects pass under the threshold', async () => {
      const other = await userOfGrid(t, gridId, ALL_BUTTONS);
      const meters = await Promise.all([onlineMeter(), onlineMeter(), onlineMeter(), onlineMeter()]);
      const both = await Promise.all([disconnect(operator, meters.slice(0, 2)), disconnect(other, meters.slice(2))]);
      expect(both.map(statusOf).sort()).toEqual(['executing', 'pendingApproval']);
    });
  });
});

describe('command history', () => {
  it('answers every kind of command the system writes, in each call that returns commands', async () => {
    const m = await suppliedMeter(t, gridId);
    const kinds = (list: CommandRecord[]) => list.map((r) => r.operation).sort();
    const history = async () => {
      const res = await t.call<Page<CommandRecord>>('/meter/commands', { id: m.id, pageSize: 100 }, operator);
      expect(res.status).toBe(200);
      return kinds(res.body.data.list);
    };
    expect(await history()).toEqual([]);
    // A meter no one operated still has the reads of collection runs, such as the demo history's gap re-collections.
    const gap = await t.call(
      '/plan/gapcollect',
      {
        targetType: 'meter',
        target: m.devAddr,
        startTime: new Date(Date.now() - 86_400_000).toISOString(),
        endTime: new Date().toISOString(),
      },
      await t.loginAdmin(),
    );
    expect(gap.status).toBe(200);
    await expect.poll(history, EVENTUALLY).toEqual([COLLECT_CMD]);

    const planid = newId();
    await t.db.insert(plan).values({
      id: planid,
      planName: 'every kind',
      planStatus: 'finished',
      devs: { itemType: 0, devList: [m.devAddr] },
      orders: [],
      createdBy: 'admin',
    });
    // Held back an hour, so the head-end leaves each row as written.
    const notBefore = new Date(Date.now() + 3_600_000);
    await t.app.headEnd.enqueue(
      t.db,
      COMMAND_OPERATIONS.map((operation) => ({
        planId: planid,
        deviceKind: 'meter',
        deviceKey: m.devAddr,
        viaDcu: null,
        meterId: m.id,
        dcuId: null,
        gridId,
        operation,
        command: { op: 'get', items: [] },
        priority: 5,
        bulk: false,
        timeoutSeconds: 30,
        expiresInSeconds: 7200,
        waitOnline: true,
        maxTimeoutRetries: 0,
        maxBusyRetries: 0,
        requestedBy: 'admin',
        audited: false,
        notBefore,
      })),
    );
    const every = [...COMMAND_OPERATIONS].sort();

    expect(await history()).toEqual([...every, COLLECT_CMD].sort());
    const planResults = await t.call<Page<CommandRecord>>('/plan/results', { planid, pageSize: 100 }, operator);
    expect(planResults.status).toBe(200);
    expect(kinds(planResults.body.data.list)).toEqual(every);
    const [, ...exported] = await exportedRows(t, 'plan', operator, { planid });
    const labels = exported.map((row) => String(row[1]));
    expect(labels).toHaveLength(every.length);
    for (const label of labels) expect(label).not.toContain('operations.names');
  });
});
