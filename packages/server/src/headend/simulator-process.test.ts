import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FRESH_START } from '../test/constants';
import {
  endLeftoverSimulator,
  launchSimulator,
  processAlive,
  simulatorBrokerUrl,
  startSimulatorProcess,
} from './simulator-process';

/** What the server would log, kept for the test to read. */
function capturingLog() {
  const lines: { level: string; msg: string; data: unknown }[] = [];
  const at =
    (level: string) =>
    (first: unknown, second?: unknown): void => {
      lines.push(
        typeof first === 'string' ? { level, msg: first, data: null } : { level, msg: String(second), data: first },
      );
    };
  return { lines, log: { info: at('info'), warn: at('warn'), error: at('error') } as never };
}

// Stand-ins for the simulator's CLI: real processes started the way the real one is, with its two flags.
const dir = mkdtempSync(path.join(os.tmpdir(), 'meterdesk-sim-'));
const runs = path.join(dir, 'runs.log');
const controls = path.join(dir, 'controls.log');
const stayingCli = path.join(dir, 'staying.mjs');
writeFileSync(
  stayingCli,
  `import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
appendFileSync(${JSON.stringify(runs)}, JSON.stringify(process.argv.slice(2)) + '\\n');
createInterface({ input: process.stdin }).on('line', (line) => appendFileSync(${JSON.stringify(controls)}, line + '\\n'));
console.log('simulating');
setInterval(() => {}, 1000);
`,
);
const dyingCli = path.join(dir, 'dying.mjs');
writeFileSync(
  dyingCli,
  `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(runs)}, 'died\\n');
console.error('cannot reach the broker');
process.exit(3);
`,
);
const runLines = () => {
  try {
    // The child's append creates the file before it writes: an empty file is no line yet.
    return readFileSync(runs, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
  } catch {
    return [];
  }
};

describe('the simulator child process', FRESH_START, () => {
  // A test that fails before its own stop() must not leave its child running after the suite.
  const started: { stop(): Promise<void> }[] = [];
  const start = (...args: Parameters<typeof startSimulatorProcess>) => {
    const sim = startSimulatorProcess(...args);
    started.push(sim);
    return sim;
  };
  afterAll(async () => {
    await Promise.all(started.map((sim) => sim.stop()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the CLI with the fleet file and the broker URL, relays its output, and stops it', async () => {
    rmSync(runs, { force: true });
    const { lines, log } = capturingLog();
    const pidFile = path.join(dir, 'simulator.pid');
    const sim = start({
      fleetFile: '/x/fleet.json',
      url: 'mqtt://127.0.0.1:5555',
      log,
      cli: stayingCli,
      pidFile,
    });
    await expect.poll(() => runLines(), { timeout: 60_000 }).toHaveLength(1);
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(sim.pid));
    expect(JSON.parse(runLines()[0] ?? '[]')).toEqual(['--fleet', '/x/fleet.json', '--url', 'mqtt://127.0.0.1:5555']);
    await expect.poll(() => lines.some((l) => l.msg === 'simulating'), { timeout: 60_000 }).toBe(true);
    // Control lines reach the simulator's standard input.
    expect(sim.send({ op: 'power', powered: false, devices: ['M1', 'D1'] })).toBe(true);
    await expect
      .poll(() => (existsSync(controls) ? readFileSync(controls, 'utf8') : ''), { timeout: 60_000 })
      .toBe('{"op":"power","powered":false,"devices":["M1","D1"]}\n');
    const pid = sim.pid as number;
    expect(processAlive(pid)).toBe(true);
    await sim.stop();
    expect(sim.send({ op: 'power', powered: true, devices: ['M1'] })).toBe(false);
    expect(processAlive(pid)).toBe(false);
    expect(existsSync(pidFile)).toBe(false);
    expect(sim.restarts).toBe(0);
    expect(lines.at(-1)?.msg).toBe('simulator stopped');
  });

  it('restarts a simulator that dies, a bounded number of times, logging each exit', async () => {
    rmSync(runs, { force: true });
    const { lines, log } = capturingLog();
    const sim = start({
      fleetFile: '/x/fleet.json',
      url: 'mqtt://127.0.0.1:5555',
      log,
      cli: dyingCli,
      maxRestarts: 2,
      restartDelayMs: 10,
    });
    await expect.poll(() => lines.find((l) => l.level === 'error')?.msg, { timeout: 120_000 }).toMatch(/keeps dying/);
    expect(runLines()).toEqual(['died', 'died', 'died']);
    expect(sim.restarts).toBe(2);
    expect(lines.filter((l) => l.msg === 'simulator exited; restarting it').map((l) => l.data)).toEqual([
      expect.objectContaining({ code: 3, restartInMs: 10 }),
      expect.objectContaining({ code: 3, restartInMs: 20 }),
    ]);
    expect(lines.some((l) => l.level === 'warn' && l.msg === 'cannot reach the broker')).toBe(true);
    await sim.stop();
  });

  it('does not restart a simulator that dies because the server is stopping it', async () => {
    rmSync(runs, { force: true });
    const { log } = capturingLog();
    const sim = start({ fleetFile: 'f', url: 'u', log, cli: dyingCli, restartDelayMs: 60_000 });
    await expect.poll(() => sim.restartPending, { timeout: 60_000 }).toBe(true);
    // Stopped between the death and the restart (Ctrl-C reaches both processes at once): no restart left.
    await sim.stop();
    expect(sim.restartPending).toBe(false);
    expect(sim.restarts).toBe(0);
    expect(runLines()).toEqual(['died']);
  });

  it('ends a simulator an earlier server left running, and nothing else', async () => {
    rmSync(runs, { force: true });
    const pidFile = path.join(dir, 'leftover.pid');
    // What a server killed with SIGKILL leaves: its simulator, still running, and the pid file.
    const orphan = spawn(process.execPath, ['--import', 'tsx', stayingCli, '--fleet', 'f', '--url', 'u'], {
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => orphan.once('exit', resolve));
    await expect.poll(() => runLines().length, { timeout: 60_000 }).toBeGreaterThan(0);
    writeFileSync(pidFile, `${orphan.pid}\n`);
    expect(await endLeftoverSimulator(pidFile, stayingCli)).toBe(orphan.pid);
    await exited;
    expect(existsSync(pidFile)).toBe(false);
    // A pid file whose process is not the simulator (a reused pid): left alone.
    writeFileSync(pidFile, `${process.pid}\n`);
    expect(await endLeftoverSimulator(pidFile, stayingCli)).toBeNull();
    expect(processAlive(process.pid)).toBe(true);
    expect(await endLeftoverSimulator(pidFile, stayingCli)).toBeNull();
  });

  it('says why it cannot start without a TCP listener, and hides the server credentials of MQTT_URL', async () => {
    const { lines, log } = capturingLog();
    const started = await launchSimulator({
      config: { dataDir: dir, mqttUrl: undefined, simulatorArgs: [] },
      broker: { tcpPort: null },
      db: null as never,
      credentials: null as never,
      log,
      cli: stayingCli,
    });
    expect(started).toBeNull();
    expect(lines[0]?.msg).toMatch(/no TCP listener/);
    expect(simulatorBrokerUrl({ mqttUrl: 'mqtt://meterdesk:s3cret@broker.local:1883' }, { tcpPort: null })).toBe(
      'mqtt://broker.local:1883',
    );
    expect(simulatorBrokerUrl({ mqttUrl: undefined }, { tcpPort: 41234 })).toBe('mqtt://127.0.0.1:41234');
  });
});
