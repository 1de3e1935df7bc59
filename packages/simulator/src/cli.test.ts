import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Fleet, OBIS } from '@meterdesk/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectHeadEnd, type HeadEnd, startBroker, type TestBroker, until } from './test/broker';

const CLI = path.join(import.meta.dirname, 'cli.ts');

describe('simulator command line', () => {
  let broker: TestBroker;
  let head: HeadEnd;
  let dir: string;
  let child: ChildProcess | null = null;

  beforeAll(async () => {
    broker = await startBroker();
    head = await connectHeadEnd(broker.url);
    dir = mkdtempSync(path.join(tmpdir(), 'simulator-cli-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await head.close();
    await broker.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('plays the fleet file the server writes, takes control lines, reports its counters to a file, and stops cleanly on SIGTERM', async () => {
    const fleet: Fleet = {
      version: 1,
      dcus: [
        {
          dcuNo: 'C-D1',
          credentials: { username: 'dcu:C-D1', password: 'pw-1' },
          meters: [{ devAddr: 'C-M1', wiring: '1P2W', prepaid: false }],
        },
      ],
      direct: [],
    };
    const fleetFile = path.join(dir, 'fleet.json');
    const statsFile = path.join(dir, 'stats.json');
    writeFileSync(fleetFile, JSON.stringify(fleet));
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        CLI,
        '--fleet',
        fleetFile,
        '--url',
        broker.url,
        '--latency',
        '5:10:20',
        '--stats-file',
        statsFile,
        '--stats-reqids',
      ],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const exited = once(child, 'exit');
    // Starting a process that compiles TypeScript on a busy machine takes a while.
    await head.waitFor((m) => m.topic === 'ami/meter/C-M1/status' && m.payload.online === true, 0, 45_000);
    expect(broker.logins).toContainEqual({ clientId: 'dcu:C-D1', username: 'dcu:C-D1', password: 'pw-1' });
    const reply = await head.ask('meter', 'C-M1', {
      reqId: 'cli-1',
      op: 'get',
      items: [{ obis: OBIS.serialNumber, classId: 1, attribute: 2 }],
    });
    expect(reply).toMatchObject({ code: '00', items: [{ value: 'C-M1' }] });
    const stats = () => (existsSync(statsFile) ? JSON.parse(readFileSync(statsFile, 'utf8')) : {});
    await until(() => stats().repliesSent === 1);
    expect(stats()).toMatchObject({
      executed: 1,
      executedTwice: 0,
      devices: { dcus: 1, meters: 1 },
      executions: { 'cli-1': 1 },
    });
    const dark = head.heard.length;
    child.stdin!.write('not a control line\n');
    child.stdin!.write(`${JSON.stringify({ op: 'power', powered: false, devices: ['C-M1'] })}\n`);
    await head.waitFor((m) => m.topic === 'ami/meter/C-M1/event' && m.payload.code === 1, dark);
    await head.waitFor((m) => m.topic === 'ami/meter/C-M1/status' && m.payload.online === false, dark);
    child.stdin!.write(`${JSON.stringify({ op: 'power', powered: true, devices: ['C-M1'] })}\n`);
    await head.waitFor((m) => m.topic === 'ami/meter/C-M1/event' && m.payload.code === 2, dark);
    const since = head.heard.length;
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    // Leaving on purpose, the DCU says so itself (with a time), rather than leaving it to its last will.
    const goodbye = await head.waitFor((m) => m.topic === 'ami/dcu/C-D1/status' && m.payload.online === false, since);
    expect(goodbye.payload.time).toEqual(expect.any(String));
  });

  it('refuses flags it cannot use', async () => {
    const bad = spawn(process.execPath, ['--import', 'tsx', CLI, '--url', broker.url, '--dcus', '1', '--loss', '2'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    bad.stderr!.on('data', (chunk) => {
      stderr += chunk;
    });
    const [code] = await once(bad, 'exit');
    expect(code).toBe(2);
    expect(stderr).toContain('--loss must be a number from 0 to 1');
  });
});
