import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FleetSchema } from '@meterdesk/contracts';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../db/ids';
import { consumer, dcu, meter, meterType, poc, supplier } from '../db/schema';
import { gridNode } from '../test/archive-fixtures';
import { createTestApp, type TestApp } from '../test/harness';
import { uniqueName } from '../test/unique';
import { writeFleet } from './fleet';

describe('the simulator fleet file', () => {
  let t: TestApp;
  let dataDir: string;
  const dcuNo = uniqueName('DCU');
  const [plain, threePhase, prepaid, direct] = ['plain', 'three', 'prepaid', 'direct'].map(uniqueName) as [
    string,
    string,
    string,
    string,
  ];

  beforeAll(async () => {
    // The app's own broker, so the test also proves app.ts hands it the device policy.
    t = await createTestApp({}, { deviceListener: true });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'meterdesk-fleet-'));
    const gridId = await gridNode(t);
    const supplierId = newId();
    await t.db
      .insert(supplier)
      .values({ id: supplierId, supplierCode: uniqueName('S'), supplierName: uniqueName('S') });
    const typeId = newId();
    await t.db
      .insert(meterType)
      .values({ id: typeId, modelName: uniqueName('T'), supplierId, wiring: '3P4W', side: 'primary' });
    const dcuId = newId();
    await t.db.insert(dcu).values({ id: dcuId, dcuNo, gridId });
    await t.db.insert(meter).values([
      { id: newId(), devAddr: plain, gridId, dcuId },
      { id: newId(), devAddr: threePhase, gridId, dcuId, meterTypeId: typeId },
    ]);
    const prepaidId = newId();
    await t.db.insert(meter).values([
      { id: prepaidId, devAddr: prepaid, gridId, dcuId },
      { id: newId(), devAddr: direct, gridId },
    ]);
    const consumerId = newId();
    await t.db.insert(consumer).values({
      id: consumerId,
      consumerCode: uniqueName('C'),
      consumerName: 'Prepaid',
      consumerType: 'residential',
      paymentMode: 'prepay',
      gridId,
    });
    await t.db
      .insert(poc)
      .values({ id: newId(), pocNo: uniqueName('P'), nature: 1, gridId, consumerId, meterId: prepaidId });
  });
  afterAll(async () => {
    await t.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes every DCU with its meters and the direct meters, private to the service user', async () => {
    const written = await writeFleet(t.db, t.app.deviceCredentials, dataDir);
    expect(written).toMatchObject({ file: path.join(dataDir, 'run', 'fleet.json'), dcus: 1, meters: 4 });
    expect(statSync(written.file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(written.file)).mode & 0o777).toBe(0o700);

    const fleet = FleetSchema.parse(JSON.parse(readFileSync(written.file, 'utf8')));
    expect(fleet.dcus).toHaveLength(1);
    const [only] = fleet.dcus;
    expect(only?.dcuNo).toBe(dcuNo);
    expect(only?.credentials?.username).toBe(`dcu:${dcuNo}`);
    // Meters behind the DCU speak through its connection: no credentials of their own.
    expect(only?.meters).toEqual(
      [
        { devAddr: plain, wiring: '1P2W', prepaid: false },
        { devAddr: threePhase, wiring: '3P4W', prepaid: false },
        { devAddr: prepaid, wiring: '1P2W', prepaid: true },
      ].sort((a, b) => a.devAddr.localeCompare(b.devAddr)),
    );
    expect(fleet.direct).toEqual([
      {
        devAddr: direct,
        wiring: '1P2W',
        prepaid: false,
        credentials: expect.objectContaining({ username: `meter:${direct}` }),
      },
    ]);
    // Written again, the passwords stay: a running simulator keeps logging in.
    const again = FleetSchema.parse(
      JSON.parse(readFileSync((await writeFleet(t.db, t.app.deviceCredentials, dataDir)).file, 'utf8')),
    );
    expect(again).toEqual(fleet);
  });

  it('gives devices passwords the embedded broker admits', async () => {
    const { file } = await writeFleet(t.db, t.app.deviceCredentials, dataDir);
    const fleet = FleetSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
    const logins = [...fleet.dcus.map((d) => d.credentials), ...fleet.direct.map((m) => m.credentials)];
    expect(logins).toHaveLength(2);
    for (const login of logins) {
      const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.broker.tcpPort}`, {
        protocolVersion: 4,
        reconnectPeriod: 0,
        username: login?.username,
        password: login?.password,
      });
      await client.endAsync();
    }
  });
});
