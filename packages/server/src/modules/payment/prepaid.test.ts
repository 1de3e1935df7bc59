import {
  type Page,
  PREPAID_RES,
  type PrepaidAccount,
  type PrepaidException,
  type Recharge,
} from '@meterdesk/contracts';
import { type Simulator, startSimulator } from '@meterdesk/simulator';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../db/ids';
import { countAll } from '../../db/rows';
import {
  consumer,
  dcu,
  deviceCommand,
  meterLive,
  poc,
  prepaidLedger,
  prepaidMeter,
  prepaidRecharge,
  sysLoginFailure,
  sysParameter,
} from '../../db/schema';
import { buildFleet } from '../../headend/fleet';
import { exportedRows, gridNode, suppliedMeter, userOfGrid } from '../../test/archive-fixtures';
import { EVENTUALLY } from '../../test/constants';
import { createTestApp, type TestApp } from '../../test/harness';
import { fieldIssues } from '../../test/issues';

const external = process.env.TEST_MQTT_URL;
const PASSWORD = 'Passw0rd!';
/** Another key than the one the server derives: the meter refuses its tokens as corrupt. */
const FOREIGN_DECODER_KEY = '0123456789ABCDEF';

let t: TestApp;
let sim: Simulator;
let operator: string;
let gridId: string;
const simDcu = `D${newId().slice(0, 9)}`.toUpperCase();
type Supplied = Awaited<ReturnType<typeof suppliedMeter>>;
/** exhausted: no credit, its relay opened; foreign: holds another decoder key; the others plain. */
let meters: Record<'exhausted' | 'foreign' | 'repeat' | 'restart' | 'postpaid', Supplied>;

const clientKey = () => `k${newId()}`;
const recharge = (meterId: string, body: object = {}, cookie = operator) =>
  t.call<Recharge>(
    '/prepaid/recharge',
    { meterId, amount: 10, password: PASSWORD, allowOverdraft: false, clientKey: clientKey(), ...body },
    cookie,
  );
const detail = async (id: string) => (await t.call<Recharge>('/prepaid/recharge/detail', { id }, operator)).body.data;
const settled = (id: string) => expect.poll(async () => (await detail(id)).state, EVENTUALLY).not.toBe('recharging');
const account = async (meterId: string) =>
  (await t.call<PrepaidAccount>('/prepaid/account', { meterId }, operator)).body.data;
const ledgerRows = (consumerId: string) =>
  t.db.select().from(prepaidLedger).where(eq(prepaidLedger.consumerId, consumerId));
const simState = (m: Supplied) => sim.device(m.devAddr).state();
const rowCounts = async () => ({
  recharges: (await t.db.select({ n: countAll() }).from(prepaidRecharge))[0]?.n,
  entries: (await t.db.select({ n: countAll() }).from(prepaidLedger))[0]?.n,
});

beforeAll(async () => {
  t = await createTestApp({ rechargeDeadlineSeconds: 300 }, { headEnd: true, deviceListener: !external });
  gridId = await gridNode(t);
  operator = await userOfGrid(t, gridId, [PREPAID_RES.page, PREPAID_RES.recharge]);
  const dcuId = newId();
  await t.db.insert(dcu).values({ id: dcuId, dcuNo: simDcu, gridId });
  const names = ['exhausted', 'foreign', 'repeat', 'restart', 'postpaid'] as const;
  const made = await Promise.all(names.map(() => suppliedMeter(t, gridId, { dcuId })));
  meters = Object.fromEntries(names.map((n, i) => [n, made[i]])) as typeof meters;
  await t.db.update(consumer).set({ paymentMode: 'postpay' }).where(eq(consumer.id, meters.postpaid.consumerId));
  const fleet = await buildFleet(t.db, t.app.deviceCredentials);
  for (const m of fleet.dcus.flatMap((d) => d.meters)) {
    if (m.devAddr === meters.exhausted.devAddr) m.credit = 0;
    if (m.devAddr === meters.foreign.devAddr) m.decoderKey = FOREIGN_DECODER_KEY;
  }
  sim = startSimulator({
    url: external ?? `mqtt://127.0.0.1:${t.broker.tcpPort}`,
    fleet,
    seed: 20,
    knobs: { latency: { min: 20, median: 50, max: 200 } },
  });
  await sim.ready;
  const online = async () =>
    [
      ...(
        await t.app.headEnd.onlineStates(
          Object.values(meters).map((m) => ({ kind: 'meter' as const, key: m.devAddr, viaDcu: simDcu })),
        )
      ).values(),
    ].every(Boolean);
  const deadline = Date.now() + 60_000;
  while (!(await online())) {
    if (Date.now() > deadline) throw new Error('the simulated meters did not come online');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 300_000);
afterAll(async () => {
  await sim?.stop();
  await t?.close();
});

describe('prepaid recharge', () => {
  it('credits the ledger and the meter’s register with STS tokens, and closes the relay the empty credit opened', async () => {
    const m = meters.exhausted;
    await expect.poll(() => simState(m).mainRelay, EVENTUALLY).toBe(0);
    const res = await recharge(m.id, { amount: 12.34 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ state: 'recharging', amount: 12.34, devAddr: m.devAddr });
    expect(res.body.data.tokens).toEqual([
      { digits: expect.stringMatching(/^\d{20}$/), tid: expect.any(Number), amount: 12.34 },
    ]);
    await settled(res.body.data.id);
    expect(await detail(res.body.data.id)).toMatchObject({ state: 'succeeded', failure: null, meterCredit: 12.34 });
    expect(simState(m).prepayment?.tids).toContain(res.body.data.tokens[0]?.tid);
    await expect.poll(() => simState(m).mainRelay, EVENTUALLY).toBe(1);
    expect(await account(m.id)).toMatchObject({ ledgerBalance: 12.34, meterCredit: 12.34 });
    // A simulator started again from the archive goes on with that credit and still refuses the token.
    const fleet = await buildFleet(t.db, t.app.deviceCredentials);
    expect(fleet.dcus.flatMap((d) => d.meters).find((f) => f.devAddr === m.devAddr)).toMatchObject({
      credit: 1234,
      tids: [res.body.data.tokens[0]?.tid],
    });
    // The vending key is sealed at rest.
    const [key] = await t.db.select().from(sysParameter).where(eq(sysParameter.key, 'stsVendingKey'));
    expect(JSON.stringify(key?.value)).not.toContain('4D455445524B4559');
  });

  it('credits once for one client key: two identical requests at once, and a repeat after it settled', async () => {
    const m = meters.repeat;
    const body = { amount: 500, clientKey: clientKey() };
    const [a, b] = await Promise.all([recharge(m.id, body), recharge(m.id, body)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.body.data.id).toBe(a.body.data.id);
    // 500.00 takes two tokens (one carries at most 163.83 exactly).
    expect(a.body.data.tokens.map((token) => token.amount)).toEqual([499.94, 0.06]);
    await settled(a.body.data.id);
    expect((await detail(a.body.data.id)).state).toBe('succeeded');
    const again = await recharge(m.id, body);
    expect(again.body.data.id).toBe(a.body.data.id);
    expect((await ledgerRows(m.consumerId)).map((r) => [r.kind, r.amountCents])).toEqual([['credit', 50_000]]);
    expect(simState(m).prepayment?.tids).toEqual(expect.arrayContaining(a.body.data.tokens.map((token) => token.tid)));
    expect(sim.stats().executedTwice).toBe(0);
  });

  it('fails a recharge the meter refuses and reverses it with a new ledger entry', async () => {
    const m = meters.foreign;
    const res = await recharge(m.id, { amount: 20 });
    await settled(res.body.data.id);
    expect(await detail(res.body.data.id)).toMatchObject({ state: 'failed', failure: 'corrupt' });
    expect((await ledgerRows(m.consumerId)).map((r) => [r.kind, r.amountCents]).sort()).toEqual([
      ['credit', 2000],
      ['reversal', -2000],
    ]);
    expect((await account(m.id)).ledgerBalance).toBe(0);
    // Append-only: an edit of the ledger is refused by the database itself.
    await expect(
      t.db.update(prepaidLedger).set({ amountCents: 0 }).where(eq(prepaidLedger.consumerId, m.consumerId)),
    ).rejects.toThrow();
  });

  it('delivers a recharge queued for an offline meter after a server restart, once', async () => {
    const m = meters.restart;
    sim.device(m.devAddr).setOnline(false);
    await expect
      .poll(
        async () =>
          (await t.app.headEnd.onlineStates([{ kind: 'meter', key: m.devAddr, viaDcu: simDcu }])).get(
            `meter:${m.devAddr}`,
          ),
        EVENTUALLY,
      )
      .toBe(false);
    const res = await recharge(m.id, { amount: 7.5 });
    expect(res.body.data.state).toBe('recharging');
    await t.restart();
    sim.device(m.devAddr).setOnline(true);
    await settled(res.body.data.id);
    expect((await detail(res.body.data.id)).state).toBe('succeeded');
    expect((await ledgerRows(m.consumerId)).map((r) => r.amountCents)).toEqual([750]);
    expect(simState(m).prepayment?.tids.filter((tid) => tid === res.body.data.tokens[0]?.tid)).toHaveLength(1);
  });

  it('fails and reverses a recharge its meter never answers by the deadline', async () => {
    // A meter the simulator does not play: never online, its tokens wait in the queue.
    const m = await suppliedMeter(t, gridId);
    const res = await recharge(m.id, { amount: 3 });
    expect(res.body.data.state).toBe('recharging');
    const [row] = await t.db.select().from(prepaidRecharge).where(eq(prepaidRecharge.id, res.body.data.id));
    // The deadline comes now rather than in five minutes.
    await t.db
      .update(deviceCommand)
      .set({ expiresAt: new Date() })
      .where(eq(deviceCommand.id, row?.commandId ?? ''));
    await settled(res.body.data.id);
    expect(await detail(res.body.data.id)).toMatchObject({ state: 'failed', failure: 'undelivered' });
    expect((await account(m.id)).ledgerBalance).toBe(0);
    // Its money's history stays: neither the meter nor the consumer is deleted, even off its POC.
    await t.db.delete(poc).where(eq(poc.meterId, m.id));
    const admin = await t.loginAdmin();
    const meterDel = await t.call<{ failures: { key: string }[] }>('/meter/delete', { ids: [m.id] }, admin);
    expect(meterDel.body.data.failures.map((f) => f.key)).toEqual(['meterHasRecharges']);
    const consumerDel = await t.call<{ failures: { key: string }[] }>(
      '/consumer/delete',
      { ids: [m.consumerId] },
      admin,
    );
    expect(consumerDel.body.data.failures.map((f) => f.key)).toEqual(['consumerHasRecharges']);
  });

  it('refuses a bad amount, a wrong password (counted toward the lock), a postpaid meter and a meter outside the grid, writing nothing', async () => {
    const before = await rowCounts();
    const m = meters.repeat;
    for (const [amount, key] of [
      [500.01, 'rechargeAmountRange'],
      [0, 'rechargeAmountRange'],
      [1.234, 'twoDecimals'],
    ] as const) {
      const res = await recharge(m.id, { amount });
      expect(res.status).toBe(400);
      expect(fieldIssues(res.body)).toEqual([['amount', key]]);
    }
    const guesser = await userOfGrid(t, gridId, [PREPAID_RES.page, PREPAID_RES.recharge]);
    const wrong = await recharge(m.id, { password: 'not-it' }, guesser);
    expect(wrong.status).toBe(400);
    expect(fieldIssues(wrong.body)).toEqual([['password', 'operatorPasswordWrong']]);
    const failures = await t.db.select().from(sysLoginFailure);
    expect(failures.some((f) => f.failures === 1 && f.username.startsWith('grid'))).toBe(true);
    const postpaid = await recharge(meters.postpaid.id);
    expect(postpaid.status).toBe(400);
    expect(fieldIssues(postpaid.body)).toEqual([['meterId', 'notPrepaid']]);
    const elsewhere = await suppliedMeter(t, await gridNode(t));
    expect((await recharge(elsewhere.id)).status).toBe(404);
    expect(await rowCounts()).toEqual(before);
    expect(await t.db.select().from(prepaidRecharge).where(eq(prepaidRecharge.meterId, elsewhere.id))).toEqual([]);
  });

  it('reconciles daily: credit but disconnected, no credit but connected outside friendly time, meter above ledger', async () => {
    const account = async (creditCents: number, relayState: number, friendlyTime?: object) => {
      const m = await suppliedMeter(t, gridId);
      await t.db.insert(prepaidMeter).values({ meterId: m.id, creditCents, ...(friendlyTime ? { friendlyTime } : {}) });
      await t.db.update(meterLive).set({ relayState }).where(eq(meterLive.meterId, m.id));
      return m;
    };
    const stranded = await account(500, 0);
    const running = await account(0, 1);
    const friendly = await account(0, 1, { hours: [{ from: '00:00', to: '00:00' }], weekdays: [], holidays: [] });
    // The refused recharge's meter: its ledger nets to 0, yet the meter says it holds 1.00.
    await t.db.update(prepaidMeter).set({ creditCents: 100 }).where(eq(prepaidMeter.meterId, meters.foreign.id));
    await t.app.prepaid.reconcileAccounts();
    const res = await t.call<Page<PrepaidException>>('/prepaid/exception/list', { pageSize: 500 }, operator);
    const kindsOf = (id: string) => res.body.data.list.filter((e) => e.meterId === id).map((e) => e.kind);
    expect(kindsOf(stranded.id)).toEqual(['creditButDisconnected']);
    expect(kindsOf(running.id)).toEqual(['noCreditButConnected']);
    expect(kindsOf(friendly.id)).toEqual([]);
    expect(kindsOf(meters.foreign.id)).toEqual(['balanceMismatch']);
    const rows = await exportedRows(t, 'prepaid/exception', operator);
    expect(rows.some((row) => row.includes(stranded.devAddr) && row.includes('Credit left but disconnected'))).toBe(
      true,
    );
  });
});
