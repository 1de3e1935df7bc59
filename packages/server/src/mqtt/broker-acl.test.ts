import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { deviceTopic } from '@meterdesk/contracts';
import type mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from '../admin-cli';
import { SecretBox } from '../crypto/secret-box';
import { newId } from '../db/ids';
import { dcu, meter } from '../db/schema';
import { gridNode } from '../test/archive-fixtures';
import { createTestApp, type TestApp } from '../test/harness';
import { connectOnce } from '../test/mqtt-client';
import { uniqueName } from '../test/unique';

const MOSQUITTO = '/usr/sbin/mosquitto';
const DYNSEC = [
  '/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so',
  '/usr/lib/aarch64-linux-gnu/mosquitto_dynamic_security.so',
  '/usr/lib/mosquitto_dynamic_security.so',
].find((p) => existsSync(p));
const missing = !existsSync(MOSQUITTO)
  ? `${MOSQUITTO} is not installed`
  : !DYNSEC
    ? "Mosquitto's dynamic security plugin is not installed"
    : null;
if (missing) console.warn(`broker-acl.test.ts: the real-Mosquitto tests are skipped: ${missing}`);

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

const connect = (port: number, username: string, password: string) =>
  connectOnce(`mqtt://127.0.0.1:${port}`, { username, password });

describe('broker-acl: the device rules for Mosquitto and EMQX', () => {
  let t: TestApp;
  let dir: string;
  const server = { username: 'meterdesk', password: 'server-pass-1' };
  const a = { dcuNo: uniqueName('A').toUpperCase(), meter: uniqueName('ma'), password: '' };
  const b = { dcuNo: uniqueName('B').toUpperCase(), meter: uniqueName('mb'), password: '' };
  const direct = { devAddr: uniqueName('d'), password: '' };
  const lines: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    dir = mkdtempSync(path.join(os.tmpdir(), 'meterdesk-acl-'));
    const gridId = await gridNode(t);
    for (const d of [a, b]) {
      const id = newId();
      await t.db.insert(dcu).values({ id, dcuNo: d.dcuNo, gridId });
      await t.db.insert(meter).values({ id: newId(), devAddr: d.meter, gridId, dcuId: id });
      d.password = await t.app.deviceCredentials.ensure('dcu', d.dcuNo);
    }
    await t.db.insert(meter).values({ id: newId(), devAddr: direct.devAddr, gridId });
    direct.password = await t.app.deviceCredentials.ensure('meter', direct.devAddr);
    const code = await runAdmin(['broker-acl', '--out', path.join(dir, 'acl')], t.db, (l) => lines.push(l), {
      secrets: () => new SecretBox(t.secretKey),
      mqttUrl: `mqtt://${server.username}:${server.password}@127.0.0.1:1883`,
    });
    expect(code).toBe(0);
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes the files private to the service user, with hashes and never a clear password', () => {
    expect(lines[0]).toBe(`Wrote the rules of 3 devices and the server user "meterdesk":`);
    for (const file of ['dynamic-security.json', 'acl_file', 'emqx-users.json', 'emqx-acl.conf']) {
      const full = path.join(dir, 'acl', file);
      expect(statSync(full).mode & 0o777, file).toBe(0o600);
      const text = readFileSync(full, 'utf8');
      for (const secret of [a.password, b.password, direct.password, server.password]) {
        expect(text.includes(secret), file).toBe(false);
      }
    }
    const acl = readFileSync(path.join(dir, 'acl', 'acl_file'), 'utf8');
    expect(acl).toContain(`user dcu:${a.dcuNo}\ntopic write ami/dcu/${a.dcuNo}/status`);
    expect(acl).toContain(`topic write ami/meter/${a.meter}/data`);
    expect(acl).toContain(`topic read ami/meter/${a.meter}/cmd`);
    expect(acl).toContain(`user meter:${direct.devAddr}\n`);
    expect(acl).toContain('pattern read notice/%u/#');
    const emqx = readFileSync(path.join(dir, 'acl', 'emqx-acl.conf'), 'utf8');
    expect(emqx).toContain(
      `{allow, {username, "dcu:${a.dcuNo}"}, subscribe, [{eq, "ami/dcu/${a.dcuNo}/cmd"}, {eq, "ami/meter/${a.meter}/cmd"}]}.`,
    );
    expect(emqx.trim().endsWith('{deny, all}.')).toBe(true);
  });

  it('refuses the command without --out', async () => {
    const out: string[] = [];
    expect(
      await runAdmin(['broker-acl'], t.db, (l) => out.push(l), { secrets: () => new SecretBox(t.secretKey) }),
    ).toBe(2);
    expect(out[0]).toMatch(/^Usage/);
  });

  describe.skipIf(missing)('on a real Mosquitto', () => {
    let mosquitto: ChildProcess;
    let port: number;
    let serverClient: mqtt.MqttClient;
    const heard: { topic: string; payload: string }[] = [];

    beforeAll(async () => {
      port = await freePort();
      const conf = path.join(dir, 'mosquitto.conf');
      writeFileSync(
        conf,
        [
          `listener ${port} 127.0.0.1`,
          'allow_anonymous false',
          // Run as root, Mosquitto switches to this user; it must be the one that owns the private files.
          `user ${os.userInfo().username}`,
          `plugin ${DYNSEC}`,
          `plugin_opt_config_file ${path.join(dir, 'acl', 'dynamic-security.json')}`,
          '',
        ].join('\n'),
      );
      mosquitto = spawn(MOSQUITTO, ['-c', conf], { stdio: 'ignore' });
      const deadline = Date.now() + 10_000;
      for (;;) {
        try {
          serverClient = await connect(port, server.username, server.password);
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
      serverClient.on('message', (topic, payload) => heard.push({ topic, payload: payload.toString() }));
      await serverClient.subscribeAsync('ami/#');
    });
    afterAll(async () => {
      await serverClient?.endAsync();
      mosquitto?.kill();
    });

    it('admits a device with its password only', async () => {
      const ok = await connect(port, `dcu:${a.dcuNo}`, a.password);
      await ok.endAsync();
      await expect(connect(port, `dcu:${a.dcuNo}`, `${a.password}x`)).rejects.toThrow(/Not authorized|Bad username/i);
      await expect(connect(port, `dcu:${a.dcuNo}`, b.password)).rejects.toThrow(/Not authorized|Bad username/i);
    });

    it("lets a DCU publish its own and its meters' topics and not another's", async () => {
      heard.length = 0;
      const clientA = await connect(port, `dcu:${a.dcuNo}`, a.password);
      const clientB = await connect(port, `dcu:${b.dcuNo}`, b.password);
      await clientA.publishAsync(deviceTopic('dcu', a.dcuNo, 'status'), 'a-own', { retain: true });
      await clientA.publishAsync(deviceTopic('meter', a.meter, 'data'), 'a-meter');
      // Mosquitto drops a refused QoS 0 publish silently and keeps the connection.
      await clientA.publishAsync(deviceTopic('dcu', b.dcuNo, 'status'), 'forged-dcu');
      await clientA.publishAsync(deviceTopic('meter', b.meter, 'data'), 'forged-meter');
      await clientA.publishAsync(deviceTopic('dcu', a.dcuNo, 'cmd'), 'forged-cmd');
      await clientA.publishAsync(deviceTopic('dcu', a.dcuNo, 'heartbeat'), 'a-last');
      await clientB.publishAsync(deviceTopic('meter', b.meter, 'reply'), 'b-own');
      await expect.poll(() => heard.map((h) => h.payload).sort()).toEqual(['a-last', 'a-meter', 'a-own', 'b-own']);
      // A's messages arrive in order: its last one came after the forged ones, which never did.
      expect(heard.filter((h) => h.topic.includes(a.dcuNo) || h.topic.includes(a.meter)).map((h) => h.payload)).toEqual(
        ['a-own', 'a-meter', 'a-last'],
      );
      await Promise.all([clientA.endAsync(), clientB.endAsync()]);
    });

    it("lets a device subscribe to its own commands and not to another's", async () => {
      const clientA = await connect(port, `dcu:${a.dcuNo}`, a.password);
      const received: string[] = [];
      clientA.on('message', (topic) => received.push(topic));
      expect((await clientA.subscribeAsync(deviceTopic('meter', a.meter, 'cmd')))[0]?.qos).toBe(0);
      for (const foreign of [deviceTopic('dcu', b.dcuNo, 'cmd'), deviceTopic('meter', b.meter, 'cmd'), 'ami/#']) {
        const granted = await clientA.subscribeAsync(foreign).then(
          (g) => g[0]?.qos,
          () => 128,
        );
        expect(granted, foreign).toBe(128);
      }
      await serverClient.publishAsync(deviceTopic('meter', b.meter, 'cmd'), 'theirs');
      await serverClient.publishAsync(deviceTopic('meter', a.meter, 'cmd'), 'mine');
      await expect.poll(() => received).toEqual([`ami/meter/${a.meter}/cmd`]);
      await clientA.endAsync();
    });

    it('holds a direct meter to its own topics', async () => {
      heard.length = 0;
      const client = await connect(port, `meter:${direct.devAddr}`, direct.password);
      await client.publishAsync(deviceTopic('meter', a.meter, 'data'), 'forged');
      await client.publishAsync(deviceTopic('meter', direct.devAddr, 'data'), 'own');
      // Only data topics: the command the test before sent may still be on its way back to the server's client.
      await expect.poll(() => heard.filter((h) => h.topic.endsWith('/data')).map((h) => h.payload)).toEqual(['own']);
      await client.endAsync();
    });
  });
});
