import { createHash, randomBytes } from 'node:crypto';
import { IMAGE_TRANSFER, IMAGE_TRANSFER_STATUS, OBIS } from '@meterdesk/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fleetFromFlags } from './flags';
import { type Simulator, startSimulator } from './simulator';
import { connectHeadEnd, type HeadEnd, inAMinute, newReqId, startBroker, type TestBroker } from './test/broker';

const QUIET = {
  latency: { min: 2, median: 5, max: 10 },
  powerOutagesPerDay: 0,
  coverOpensPerDay: 0,
  heartbeatSec: 3600,
  activationRebootSec: 0,
};
const BLOCK = 256;
const image = randomBytes(BLOCK * 5 + 100);
const sha256 = createHash('sha256').update(image).digest('hex');
const blocks = Math.ceil(image.length / BLOCK);
const blockValue = (block: number) => ({
  block,
  data: image.subarray(block * BLOCK, (block + 1) * BLOCK).toString('base64'),
});
const item = (attribute: number, value?: unknown) => ({
  obis: OBIS.imageTransfer,
  classId: IMAGE_TRANSFER.classId,
  attribute,
  ...(value === undefined ? {} : { value }),
});
const { initiate, transferBlock, verify, activate } = IMAGE_TRANSFER.methods;

describe('image transfer (class 18)', () => {
  let broker: TestBroker;
  let head: HeadEnd;
  let sim: Simulator | null = null;
  const fleet = fleetFromFlags({ dcus: 1, metersPerDcu: 3, seed: 9, prefix: 'IT' });
  const [m1, m2, m3] = fleet.dcus[0]!.meters.map((m) => m.devAddr) as [string, string, string];
  const dcuNo = fleet.dcus[0]!.dcuNo;

  beforeEach(async () => {
    broker = await startBroker();
    head = await connectHeadEnd(broker.url);
  });
  afterEach(async () => {
    await sim?.stop();
    await head.close();
    await broker.close();
  });

  const ask = (kind: 'dcu' | 'meter', key: string, op: string, items: object[]) =>
    head.ask(kind, key, { reqId: newReqId(), deadline: inAMinute(), op, items }) as Promise<{
      code: string;
      items: { code: string; value?: unknown }[];
    }>;
  const action = (key: string, method: number, value?: unknown) => ask('meter', key, 'action', [item(method, value)]);
  const read = async (key: string, obis: string, classId: number, attribute: number) =>
    (await ask('meter', key, 'get', [{ obis, classId, attribute }])).items[0]?.value;
  const initiateOn = (key: string) =>
    action(key, initiate, { identifier: 'MT-9.9.9', size: image.length, blockSize: BLOCK, sha256 });

  it('takes blocks in any order, verifies the digest and activates the identifier, once', async () => {
    sim = startSimulator({ url: broker.url, fleet, seed: 9, knobs: QUIET });
    await sim.ready;
    expect((await initiateOn(m1)).code).toBe('00');
    const order = [0, 2, 1, ...Array.from({ length: blocks - 3 }, (_, i) => i + 3)];
    const sent = await ask(
      'meter',
      m1,
      'action',
      order.map((b) => item(transferBlock, blockValue(b))),
    );
    expect(sent.code).toBe('00');
    expect(await read(m1, OBIS.imageTransfer, 18, IMAGE_TRANSFER.attributes.firstNotTransferredBlock)).toBe(blocks);
    expect((await action(m1, verify)).code).toBe('00');
    expect((await action(m1, activate)).code).toBe('00');
    expect(await read(m1, OBIS.firmwareVersion, 1, 2)).toBe('MT-9.9.9');
    // Told again (a new reqId), it answers success without activating a second time.
    expect((await action(m1, activate)).code).toBe('00');
    expect(sim.device(m1).state().image).toMatchObject({ activations: 1, activateCalls: 2, activatedTwice: 0 });
    expect(sim.stats().image).toEqual({ activations: 1, activatedTwice: 0, activateRepeated: 1 });
  });

  it('refuses to verify a transfer that misses a block or whose digest differs, and then to activate', async () => {
    sim = startSimulator({ url: broker.url, fleet, seed: 9, knobs: QUIET });
    await sim.ready;
    const before = sim.device(m1).state().firmware;
    await initiateOn(m1);
    const all = Array.from({ length: blocks }, (_, b) => b);
    await ask(
      'meter',
      m1,
      'action',
      all.slice(1).map((b) => item(transferBlock, blockValue(b))),
    );
    expect(await read(m1, OBIS.imageTransfer, 18, IMAGE_TRANSFER.attributes.firstNotTransferredBlock)).toBe(0);
    expect((await action(m1, verify)).code).toBe('02');
    expect(await read(m1, OBIS.imageTransfer, 18, IMAGE_TRANSFER.attributes.status)).toBe(
      IMAGE_TRANSFER_STATUS.verificationFailed,
    );
    expect((await action(m1, activate)).code).toBe('02');
    // A block of other bytes: every block arrived, the digest is not the one initiated.
    const wrong = { block: 0, data: randomBytes(BLOCK).toString('base64') };
    expect((await action(m1, transferBlock, wrong)).code).toBe('00');
    expect((await action(m1, verify)).code).toBe('02');
    expect((await action(m1, activate)).code).toBe('02');
    expect(sim.device(m1).state()).toMatchObject({ firmware: before, image: { activations: 0 } });
  });

  it('fails verification on a device the knob names, whatever it received', async () => {
    sim = startSimulator({ url: broker.url, fleet, seed: 9, knobs: { ...QUIET, imageVerifyFails: `^${m2}$` } });
    await sim.ready;
    expect(sim.device(m2).state().faults.failImageVerify).toBe(true);
    expect(sim.device(m1).state().faults.failImageVerify).toBe(false);
    await initiateOn(m2);
    await ask(
      'meter',
      m2,
      'action',
      Array.from({ length: blocks }, (_, b) => item(transferBlock, blockValue(b))),
    );
    expect((await action(m2, verify)).code).toBe('02');
    expect((await action(m2, activate)).code).toBe('02');
  });

  it("broadcasts a DCU's blocks to the meters that initiated the image; each fills what it missed", async () => {
    sim = startSimulator({ url: broker.url, fleet, seed: 9, knobs: { ...QUIET, imageBroadcastLoss: 0.3 } });
    await sim.ready;
    await initiateOn(m1);
    await initiateOn(m2);
    const broadcast = Array.from({ length: blocks }, (_, b) =>
      item(transferBlock, { ...blockValue(b), broadcast: 'MT-9.9.9' }),
    );
    expect((await ask('dcu', dcuNo, 'action', broadcast)).code).toBe('00');
    // m3 initiated nothing and heard nothing; the others heard most of it.
    expect(sim.device(m3).state().image.firstMissing).toBe(0);
    expect(sim.device(m1).state().image.firstMissing + sim.device(m2).state().image.firstMissing).toBeGreaterThan(0);
    for (const m of [m1, m2]) {
      const first = (await read(
        m,
        OBIS.imageTransfer,
        18,
        IMAGE_TRANSFER.attributes.firstNotTransferredBlock,
      )) as number;
      const rest = Array.from({ length: blocks - first }, (_, i) => item(transferBlock, blockValue(first + i)));
      if (rest.length) expect((await ask('meter', m, 'action', rest)).code).toBe('00');
      expect((await action(m, verify)).code).toBe('00');
    }
  });
});
