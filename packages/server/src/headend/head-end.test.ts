import { Writable } from 'node:stream';
import { type DeviceCommand, type DeviceKind, deviceTopic, RESULT_CODES } from '@meterdesk/contracts';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../db/ids';
import { deviceCommand } from '../db/schema';
import { createLogger } from '../logger';
import { EVENTUALLY } from '../test/constants';
import { createTestApp, type TestApp } from '../test/harness';
import { headEndOnline, scriptedDevice } from '../test/scripted-device';
import type { NewCommand } from './head-end';

/*
 * The head-end's own rules, below the plans: slots per DCU with one kept for one-off commands, and
 * commands that wait for an offline device instead of failing.
 */

let t: TestApp;
/** What the app logs: on a shared external broker the head-end also hears other test files' devices. */
const logLines: string[] = [];
beforeAll(async () => {
  const capture = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  t = await createTestApp({ headendDcuConcurrency: 4 }, { headEnd: true, logger: createLogger('warn', capture) });
});
afterAll(() => t?.close());

const key = (prefix: string) => `${prefix}${newId().slice(0, 10)}`.toUpperCase();

function command(deviceKind: DeviceKind, deviceKey: string, viaDcu: string | null, extra: Partial<NewCommand> = {}) {
  return {
    planId: null,
    deviceKind,
    deviceKey,
    viaDcu,
    meterId: null,
    dcuId: null,
    gridId: null,
    operation: 'relayConnect',
    command: { op: 'action' as const, items: [{ obis: '0-0:96.3.10.255', classId: 70, attribute: 2 }] },
    priority: 5,
    bulk: false,
    timeoutSeconds: 30,
    expiresInSeconds: 120,
    waitOnline: false,
    maxTimeoutRetries: 0,
    maxBusyRetries: 0,
    requestedBy: 'test',
    audited: false,
    ...extra,
  } satisfies NewCommand;
}

async function enqueue(commands: NewCommand[]) {
  const rows = await t.app.headEnd.enqueue(t.db, commands);
  t.app.headEnd.kick();
  return rows;
}

const stateOf = async (id: string) => (await t.db.select().from(deviceCommand).where(eq(deviceCommand.id, id)))[0];

describe('slots per DCU', () => {
  it('a batch never takes a DCU’s last slot: a one-off command queued after it goes at once', async () => {
    const dcuNo = key('D');
    const dcu = await scriptedDevice(t.broker, 'dcu', dcuNo);
    await dcu.setOnline(true);
    const meters = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const addr = key('M');
        // Holds every command: nothing is answered, so the slots stay taken.
        const device = await scriptedDevice(
          t.broker,
          'meter',
          addr,
          Array(5).fill(() => null),
        );
        await device.setOnline(true);
        return { addr, device };
      }),
    );
    for (const m of meters)
      await expect.poll(() => headEndOnline(t.app.headEnd, 'meter', m.addr), EVENTUALLY).toBe(true);
    await expect.poll(() => headEndOnline(t.app.headEnd, 'dcu', dcuNo), EVENTUALLY).toBe(true);

    const batch = meters.slice(0, 7);
    await enqueue(batch.map((m) => command('meter', m.addr, dcuNo, { bulk: true })));
    const sentCount = () => batch.filter((m) => m.device.received.length > 0).length;
    await expect.poll(sentCount, EVENTUALLY).toBe(3);

    const oneOff = meters[7] as (typeof meters)[number];
    await enqueue([command('meter', oneOff.addr, dcuNo, { priority: 1 })]);
    await expect.poll(() => oneOff.device.received.length, EVENTUALLY).toBe(1);
    // The batch still holds three slots and no more.
    expect(sentCount()).toBe(3);
  });
});

describe('offline devices', () => {
  it('a command that may wait sleeps while its device is offline and goes when it comes online', async () => {
    const addr = key('M');
    const device = await scriptedDevice(t.broker, 'meter', addr);
    await device.setOnline(false);
    await expect.poll(() => headEndOnline(t.app.headEnd, 'meter', addr), EVENTUALLY).toBe(false);
    const [row] = await enqueue([command('meter', addr, null, { waitOnline: true })]);
    // Parked until its device's next online message (its due time moved to its expiry), not failed.
    await expect
      .poll(async () => (await stateOf(row!.id))?.notBefore.getTime(), EVENTUALLY)
      .toBe(row!.expiresAt.getTime());
    expect((await stateOf(row!.id))?.state).toBe('queued');
    expect(device.received).toHaveLength(0);

    await device.setOnline(true);
    await expect.poll(async () => (await stateOf(row!.id))?.resultCode, EVENTUALLY).toBe(RESULT_CODES.success);
    expect(device.received).toHaveLength(1);
  });

  it('one that may not wait ends with 90; one whose wait runs out ends with 90 too', async () => {
    const addr = key('M');
    const device = await scriptedDevice(t.broker, 'meter', addr);
    await device.setOnline(false);
    await expect.poll(() => headEndOnline(t.app.headEnd, 'meter', addr), EVENTUALLY).toBe(false);
    const [now, later] = await enqueue([
      command('meter', addr, null),
      command('meter', addr, null, { waitOnline: true, expiresInSeconds: 1, operation: 'relayDisconnect' }),
    ]);
    await expect.poll(async () => (await stateOf(now!.id))?.resultCode, EVENTUALLY).toBe(RESULT_CODES.offline);
    await expect.poll(async () => (await stateOf(later!.id))?.resultCode, EVENTUALLY).toBe(RESULT_CODES.offline);
    expect(device.received).toHaveLength(0);
  });

  it('a reply on a device topic for a command it was never sent is ignored', async () => {
    const reqId = newId();
    await t.broker.publish(deviceTopic('meter', key('M'), 'reply'), {
      reqId,
      code: '00',
    } satisfies Partial<DeviceCommand> & { code: string });
    const refusals = () =>
      logLines
        .map((line) => JSON.parse(line))
        .filter((entry) => entry.reqId === reqId && entry.reason === 'unknownReqId');
    await expect.poll(() => refusals().length, EVENTUALLY).toBe(1);
  });
});
