import { CLOCK_MONITORING_RES, type ClockRow, MAX_BATCH_DEVICES, type Page, type Plan } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadingWriter } from '../../readings/writer';
import { exportedRows, gridNode, meterAt, suppliedMeter, userOfGrid } from '../../test/archive-fixtures';
import { EVENTUALLY } from '../../test/constants';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';
import { headEndOnline, scriptedDevice } from '../../test/scripted-device';

const DAY_MS = 86_400_000;
const NOW = Date.now();
const ago = (days: number) => new Date(NOW - days * DAY_MS);
const CLOCK_SYNC = '/serviceRequest/batchOperation/clockSync';

describe('clock monitoring: the latest deviation per meter, and a clock sync of the selected', () => {
  let t: TestApp;
  let area: string;
  let operator: string;
  let viewer: string;
  const m = {} as Record<'p' | 'q' | 'r' | 'old' | 's', { id: string; devAddr: string }>;
  const list = (body: object, cookie = operator) =>
    t.call<Page<ClockRow>>('/analytics/clockMonitoring/list', body, cookie);

  beforeAll(async () => {
    t = await createTestApp({}, { headEnd: true });
    area = await gridNode(t);
    m.p = await suppliedMeter(t, area);
    m.q = await suppliedMeter(t, area);
    m.r = await meterAt(t, area);
    m.old = await meterAt(t, area);
    m.s = await suppliedMeter(t, await gridNode(t));
    const writer = new ReadingWriter(t.database);
    await writer.write({
      clockChecks: [
        { meterId: m.p.id, ts: ago(3), deviationSeconds: 30 },
        { meterId: m.p.id, ts: ago(1), deviationSeconds: -200 },
        { meterId: m.q.id, ts: ago(1), deviationSeconds: 4000 },
        { meterId: m.r.id, ts: ago(1), deviationSeconds: 10 },
        { meterId: m.old.id, ts: ago(40), deviationSeconds: 100 },
        { meterId: m.s.id, ts: ago(1), deviationSeconds: 500 },
      ],
    });
    // An earlier check arriving late leaves the latest one in place.
    await writer.write({ clockChecks: [{ meterId: m.p.id, ts: ago(2), deviationSeconds: 999 }] });
    operator = await userOfGrid(t, area, [
      CLOCK_MONITORING_RES.page,
      `${CLOCK_MONITORING_RES.page}/export`,
      CLOCK_SYNC,
    ]);
    viewer = await userOfGrid(t, area, [CLOCK_MONITORING_RES.page]);
  });
  afterAll(() => t?.close());

  it('lists the meters of the scope whose latest check in the period is off by 60 s or more, furthest first', async () => {
    const res = await list({});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.list.map((r) => [r.devAddr, r.deviationSeconds, r.online])).toEqual([
      [m.q.devAddr, 4000, false],
      [m.p.devAddr, -200, false],
    ]);
    expect(res.body.data.total).toBe(2);
    expect(res.body.data.list[1]?.checkedAt).toBe(`${ago(1).toISOString().slice(0, 19)}Z`);

    const all = await list({ deviationSeconds: '0', sortField: 'devAddr', sortOrder: 'ascend' });
    expect(all.body.data.list.map((r) => r.devAddr)).toEqual(
      [m.p.devAddr, m.q.devAddr, m.r.devAddr].sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase())),
    );
    // A longer period reaches the meter last checked 40 days ago.
    const longer = await list({
      deviationSeconds: 100,
      startDay: ago(45).toISOString().slice(0, 10),
      endDay: ago(0).toISOString().slice(0, 10),
    });
    expect(longer.body.data.list.map((r) => r.devAddr)).toEqual([m.q.devAddr, m.p.devAddr, m.old.devAddr]);
  });

  it('refuses a threshold that is not a whole number of seconds up to a day, naming the field', async () => {
    for (const [value, key] of [
      ['abc', 'invalidValue'],
      [-1, 'outOfRange'],
      [1.5, 'wholeNumber'],
      [86_401, 'outOfRange'],
    ] as const) {
      const res = await list({ deviationSeconds: value });
      expect(res.status, String(value)).toBe(400);
      expect(fieldIssues(res.body)).toEqual([['deviationSeconds', key]]);
    }
  });

  it('sums the checks of the scope: checked, beyond the threshold, the largest, and bands for the chart', async () => {
    const res = await t.call<{ figures: object; points: object[] }>('/analytics/clockMonitoring/summary', {}, operator);
    expect(res.body.data.figures).toEqual({ meters: 4, checked: 3, threshold: 60, beyond: 2, largest: 4000 });
    expect(res.body.data.points).toEqual([
      { band: '0–59 s', meters: 1 },
      { band: '60–299 s', meters: 1 },
      { band: '300–899 s', meters: 0 },
      { band: '900–3599 s', meters: 0 },
      { band: '≥ 3600 s', meters: 1 },
    ]);
  });

  it('exports the meters beyond the threshold', async () => {
    const rows = await exportedRows(t, 'analytics/clockMonitoring', operator, {
      columns: ['devAddr', 'deviationSeconds'],
    });
    expect(rows).toEqual([
      ['Meter SN', 'Clock deviation (s)'],
      [m.q.devAddr, 4000],
      [m.p.devAddr, -200],
    ]);
  });

  it('counts every meter’s clock for a caller holding everything, a deleted meter’s leaving with it', async () => {
    const admin = await t.loginAdmin();
    const gone = await meterAt(t, area);
    await new ReadingWriter(t.database).write({
      clockChecks: [{ meterId: gone.id, ts: ago(1), deviationSeconds: 700 }],
    });
    const figures = async () => {
      const [page, summary] = await Promise.all([
        list({}, admin),
        t.call<{ figures: { checked: number; beyond: number } }>('/analytics/clockMonitoring/summary', {}, admin),
      ]);
      const { checked, beyond } = summary.body.data.figures;
      return { total: page.body.data.total, checked, beyond };
    };
    // p, q, s and the one to go beyond 60 s, r within; the one checked 40 days ago outside the period.
    expect(await figures()).toEqual({ total: 4, checked: 5, beyond: 4 });
    expect((await t.call('/meter/delete', { ids: [gone.id] }, admin)).status).toBe(200);
    expect(await figures()).toEqual({ total: 3, checked: 4, beyond: 3 });
  });

  it('syncs the selected clocks through the batch operation: the meter leaves the list once it confirms', async () => {
    const device = await scriptedDevice(t.broker, 'meter', m.p.devAddr);
    await device.setOnline(true);
    await expect.poll(() => headEndOnline(t.app.headEnd, 'meter', m.p.devAddr), EVENTUALLY).toBe(true);
    expect((await list({})).body.data.list.map((r) => [r.devAddr, r.online])).toEqual([
      [m.q.devAddr, false],
      [m.p.devAddr, true],
    ]);

    const sync = (devList: string[], cookie = operator) =>
      t.call<{ planid: string }>(
        '/plan/createplan',
        {
          planName: 'clock sync',
          devs: { itemType: 0, devList },
          orders: [{ cmd: 'clockSync', params: { source: 'system' } }],
        },
        cookie,
      );
    // What the batch operation refuses, the clock page's sync is refused too: before anything is sent.
    const tooMany = await sync(Array.from({ length: MAX_BATCH_DEVICES + 1 }, (_, i) => `CLOCK${i}`));
    expect(tooMany.status).toBe(400);
    expect(fieldIssues(tooMany.body)).toEqual([['devs.devList', 'batchTooLarge']]);
    expect((await sync([m.s.devAddr])).body).toMatchObject({ msg: 'deviceNotFound', data: { devices: [m.s.devAddr] } });
    expect((await sync([m.q.devAddr])).body).toMatchObject({ msg: 'MThasOffline', data: { devices: [m.q.devAddr] } });
    expect((await sync([m.p.devAddr], viewer)).status).toBe(403);
    expect(device.received).toHaveLength(0);

    const res = await sync([m.p.devAddr]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await expect
      .poll(
        async () => (await t.call<Plan>('/plan/detail', { planid: res.body.data.planid }, operator)).body.data.byCode,
        {
          timeout: 60_000,
        },
      )
      .toEqual({ '00': 1 });
    // Its clock was set to the head-end's: a check of 0 s, the latest.
    await expect
      .poll(async () => (await list({ deviationSeconds: 0, devAddr: m.p.devAddr })).body.data.list, EVENTUALLY)
      .toEqual([expect.objectContaining({ devAddr: m.p.devAddr, deviationSeconds: 0 })]);
    expect((await list({})).body.data.list.map((r) => r.devAddr)).toEqual([m.q.devAddr]);
  });
});
