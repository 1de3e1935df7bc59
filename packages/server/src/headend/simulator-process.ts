import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { SimulatorControl } from '@meterdesk/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config';
import type { Db } from '../db/driver';
import type { Broker } from '../mqtt/broker';
import type { DeviceCredentials } from '../mqtt/device-credentials';
import { REPO_ROOT, SIMULATOR_CLI } from '../paths';
import { writeFleet } from './fleet';

export const SIMULATOR_PID_FILE = 'simulator.pid';

export interface SimulatorProcessOptions {
  fleetFile: string;
  /** The broker the devices log in to: the embedded one's TCP listener or MQTT_URL. */
  url: string;
  log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
  /** The simulator's entry point (tests give a stand-in). */
  cli?: string;
  /** Restarts allowed within `restartWindowMs` before giving up: a simulator that cannot start is not retried forever. */
  maxRestarts?: number;
  restartWindowMs?: number;
  /** Delay before the first restart, doubled at each one within the window. */
  restartDelayMs?: number;
  /** How long a stopping simulator gets after SIGTERM before SIGKILL. */
  stopGraceMs?: number;
  /** Where the running child's pid is kept, so that the next server can end one it outlived. */
  pidFile?: string;
  /** More command-line flags (config SIMULATOR_ARGS). */
  args?: readonly string[];
}

export interface SimulatorProcess {
  /** The running child's pid, or null between a crash and its restart (or after giving up). */
  readonly pid: number | null;
  /** How many times it was restarted after dying. */
  readonly restarts: number;
  /** Whether it died and waits for its restart. */
  readonly restartPending: boolean;
  /** Hands the running simulator a control line (its standard input); false when none runs. */
  send(control: SimulatorControl): boolean;
  stop(): Promise<void>;
}

/**
 * Runs the fleet simulator as a child process of the server (`npm start` with the demo archive), its
 * output in the server's log. It is restarted when it dies, with a doubling delay, at most
 * `maxRestarts` times within `restartWindowMs`; `stop` ends it (SIGTERM, then SIGKILL).
 */
export function startSimulatorProcess(options: SimulatorProcessOptions): SimulatorProcess {
  const cli = options.cli ?? SIMULATOR_CLI;
  const maxRestarts = options.maxRestarts ?? 5;
  const windowMs = options.restartWindowMs ?? 10 * 60_000;
  const firstDelay = options.restartDelayMs ?? 1000;
  const { log } = options;
  let child: ChildProcess | null = null;
  let stopping = false;
  let restarts = 0;
  let recentDeaths: number[] = [];
  let timer: NodeJS.Timeout | null = null;

  const run = () => {
    // The sources (a server run by tsx or vitest) need tsx; the bundle `npm start` builds runs on node alone.
    const runtime = cli.endsWith('.ts') ? ['--import', 'tsx'] : ['--enable-source-maps'];
    const started = spawn(
      process.execPath,
      [...runtime, cli, '--fleet', options.fleetFile, '--url', options.url, ...(options.args ?? [])],
      // stdin stays a pipe the simulator may watch: it closes when the server dies, even by SIGKILL.
      { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    child = started;
    if (options.pidFile && started.pid) writeFileSync(options.pidFile, `${started.pid}\n`, { mode: 0o600 });
    const relay = (stream: NodeJS.ReadableStream, level: 'info' | 'warn') =>
      createInterface({ input: stream }).on('line', (line) => log[level]({ simulator: started.pid }, line));
    if (started.stdout) relay(started.stdout, 'info');
    if (started.stderr) relay(started.stderr, 'warn');
    started.on('error', (err) => log.error({ err }, 'simulator could not be started'));
    // A control line written as it dies fails on the closed pipe; the exit is what gets reported.
    started.stdin?.on('error', (err) => log.warn({ err }, 'simulator input closed'));
    started.on('exit', (code, signal) => {
      child = null;
      if (options.pidFile) rmSync(options.pidFile, { force: true });
      if (stopping) {
        log.info({ code, signal }, 'simulator stopped');
        return;
      }
      const now = Date.now();
      recentDeaths = [...recentDeaths.filter((at) => now - at < windowMs), now];
      if (recentDeaths.length > maxRestarts) {
        log.error(
          { code, signal, deaths: recentDeaths.length, windowMs },
          'simulator exited; it keeps dying, so it is not restarted (restart the server to try again)',
        );
        return;
      }
      const delay = firstDelay * 2 ** (recentDeaths.length - 1);
      log.warn({ code, signal, restartInMs: delay }, 'simulator exited; restarting it');
      // Checked when the timer fires, not now: a Ctrl-C reaches the simulator and the server together.
      timer = setTimeout(() => {
        timer = null;
        if (stopping) return;
        restarts += 1;
        run();
      }, delay);
    });
  };
  run();

  return {
    get pid() {
      return child?.pid ?? null;
    },
    get restarts() {
      return restarts;
    },
    get restartPending() {
      return timer !== null;
    },
    send: (control) => {
      const input = child?.stdin;
      if (!input?.writable) return false;
      input.write(`${JSON.stringify(control)}\n`);
      return true;
    },
    stop: async () => {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        const kill = setTimeout(() => running.kill('SIGKILL'), options.stopGraceMs ?? 5000);
        running.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        running.kill('SIGTERM');
      });
    },
  };
}

/** Whether a process with this pid runs (signal 0 tests without sending anything). */
export const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * A server killed outright (SIGKILL) leaves its simulator running, and a second one would play the
 * same devices. The pid file names it; its command line (Linux /proc) must still be the simulator's,
 * so a pid reused by another process is left alone. Answers the pid it ended, or null.
 */
export async function endLeftoverSimulator(pidFile: string, cli: string, graceMs = 5000): Promise<number | null> {
  let pid: number;
  let commandLine: string;
  try {
    pid = Number.parseInt(readFileSync(pidFile, 'utf8'), 10);
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    rmSync(pidFile, { force: true });
    return null;
  }
  rmSync(pidFile, { force: true });
  if (!commandLine.split('\0').includes(cli)) return null;
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (processAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  if (processAlive(pid)) process.kill(pid, 'SIGKILL');
  return pid;
}

/** Whether the simulator's code is in this tree (a build without `packages/simulator` runs without it). */
export const simulatorInstalled = (cli = SIMULATOR_CLI) => existsSync(cli);

export interface LaunchDeps {
  config: Pick<Config, 'dataDir' | 'mqttUrl' | 'simulatorArgs'>;
  broker: Pick<Broker, 'tcpPort'>;
  db: Db;
  credentials: DeviceCredentials;
  log: SimulatorProcessOptions['log'];
  cli?: string;
}

/** The broker URL the simulator's devices use: MQTT_URL without the server's own credentials, or the embedded listener. */
export function simulatorBrokerUrl(config: Pick<Config, 'mqttUrl'>, broker: Pick<Broker, 'tcpPort'>): string | null {
  if (config.mqttUrl) {
    const url = new URL(config.mqttUrl);
    url.username = '';
    url.password = '';
    return url.toString();
  }
  return broker.tcpPort === null ? null : `mqtt://127.0.0.1:${broker.tcpPort}`;
}

/**
 * `SIMULATOR=on` (or the demo archive's default): writes the archive's fleet and starts the simulator
 * on it, after the server listens. Answers null, with the reason logged, when it cannot run.
 */
export async function launchSimulator(deps: LaunchDeps): Promise<SimulatorProcess | null> {
  const { config, broker, log } = deps;
  const url = simulatorBrokerUrl(config, broker);
  if (!url) {
    log.warn(
      'simulator not started: the embedded broker has no TCP listener (MQTT_TCP_PORT=off, or its port was taken), so simulated devices could not connect',
    );
    return null;
  }
  const cli = deps.cli ?? SIMULATOR_CLI;
  if (!simulatorInstalled(cli)) {
    log.warn({ cli }, 'simulator not started: its code is not in this installation');
    return null;
  }
  const fleet = await writeFleet(deps.db, deps.credentials, config.dataDir);
  const pidFile = path.join(path.dirname(fleet.file), SIMULATOR_PID_FILE);
  const leftover = await endLeftoverSimulator(pidFile, cli);
  if (leftover) log.warn({ pid: leftover }, 'stopped a simulator an earlier server left running');
  log.info({ fleet: fleet.file, dcus: fleet.dcus, meters: fleet.meters, url }, 'starting the device simulator');
  return startSimulatorProcess({ fleetFile: fleet.file, url, log, cli, pidFile, args: config.simulatorArgs });
}
