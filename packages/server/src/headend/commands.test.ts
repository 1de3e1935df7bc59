import { OBIS, type PARAM_SYNC_MODES, ParamSyncParamsSchema } from '@meterdesk/contracts';
import { describe, expect, it } from 'vitest';
import { commonObisLookup } from '../test/common-obis';
import { buildCommand } from './commands';

describe('device commands of operations', () => {
  it('relay commands name the target state: remote_disconnect (1) and remote_reconnect (2), main and external relay', async () => {
    expect(await buildCommand('relayDisconnect', {}, commonObisLookup)).toEqual({
      op: 'action',
      items: [{ obis: OBIS.mainRelay, classId: 70, attribute: 1 }],
    });
    expect((await buildCommand('relayConnect', {}, commonObisLookup)).items[0]?.attribute).toBe(2);
    expect((await buildCommand('externalRelayDisconnect', {}, commonObisLookup)).items[0]?.obis).toBe(
      OBIS.externalRelay,
    );
  });

  it('prepayment on and off set the account payment mode (2 prepayment, 1 credit)', async () => {
    expect((await buildCommand('prepaymentOn', {}, commonObisLookup)).items[0]?.value).toEqual({ paymentMode: 2 });
    expect((await buildCommand('prepaymentOff', {}, commonObisLookup)).items[0]?.value).toEqual({ paymentMode: 1 });
  });

  it('a clock set to the system time is filled when sent; a custom time is kept', async () => {
    expect(await buildCommand('clockSync', { source: 'system' }, commonObisLookup)).toMatchObject({
      systemClock: true,
    });
    const custom = await buildCommand(
      'clockSync',
      { source: 'custom', time: '2026-11-25T08:00:00+08:00' },
      commonObisLookup,
    );
    expect(custom.systemClock).toBeUndefined();
    expect(custom.items[0]?.value).toBe('2026-11-25T08:00:00+08:00');
  });

  it('each parameter sync mode writes exactly its parts', async () => {
    const parts = async (mode: (typeof PARAM_SYNC_MODES)[number]) =>
      (await buildCommand('paramSync', ParamSyncParamsSchema.parse({ mode }), commonObisLookup)).items
        .map((i) => `${i.classId}/${i.attribute}`)
        .sort();
    const freeze = '7/4';
    const channel = '7/3';
    const transfer = '40/4';
    expect(await parts('all')).toEqual([transfer, channel, freeze].sort());
    expect(await parts('freezePeriod')).toEqual([freeze]);
    expect(await parts('transferTimeAndFreezePeriod')).toEqual([transfer, freeze].sort());
    expect(await parts('channelAndFreezePeriod')).toEqual([channel, freeze].sort());
    expect(await parts('channel')).toEqual([channel]);
    expect(await parts('transferTime')).toEqual([transfer]);
    const channels = (
      await buildCommand('paramSync', ParamSyncParamsSchema.parse({ mode: 'channel' }), commonObisLookup)
    ).items[0]?.value as string[];
    expect(channels).toContain(OBIS.activeImport);
  });

  it('a real-time read takes only items flagged read instantly', async () => {
    expect(await buildCommand('read', { obis: [OBIS.voltageL1] }, commonObisLookup)).toEqual({
      op: 'get',
      items: [{ obis: OBIS.voltageL1, classId: 3, attribute: 2 }],
    });
    await expect(buildCommand('read', { obis: [OBIS.loadProfile] }, commonObisLookup)).rejects.toMatchObject({
      key: 'obisNotReadable',
    });
  });

  it('a frame is sent without spaces, in upper case', async () => {
    expect(await buildCommand('dcuFrame', { frame: '68 a0 16' }, commonObisLookup)).toEqual({
      op: 'frame',
      items: [],
      frame: '68A016',
    });
  });
});
