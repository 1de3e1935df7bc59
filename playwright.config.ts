import { tmpdir } from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 8199);
export const E2E_ADMIN_PASSWORD = 'Admin@123';
export const E2E_OPERATOR_PASSWORD = 'Oper@123';

// The run's scratch directory (server data, stored logins). The workers load this file again and
// inherit the variable, so all share one; e2e/serve.mjs creates it and removes it when the server stops.
process.env.E2E_SCRATCH ??= path.join(tmpdir(), `meterdesk-e2e-${process.pid}`);

/**
 * The journeys run against the production build served by the real server, on a fresh
 * PGlite data directory and the embedded broker, in Debian's Chromium. Each spec makes its own
 * data through the API under unique names and starts from a login stored once per role by the
 * setup project, so the specs run in parallel and in any order.
 */
export default defineConfig({
  testDir: 'e2e',
  fullyParallel: true,
  workers: 2,
  // A retry shows a flake in the report, and the flake still fails the run (scripts/test.mjs counts it too).
  retries: process.env.CI ? 1 : 0,
  failOnFlakyTests: true,
  // Sized for a machine whose both cores are busy with something else (a page's first data then
  // arrives seconds after the navigation); the long journeys ask for more.
  timeout: 150_000,
  expect: { timeout: 30_000 },
  outputDir: '.tmp/e2e-results',
  reporter: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ? [['list'], ['json']] : [['list']],
  projects: [
    { name: 'setup', testMatch: /auth\.setup\.ts$/ },
    { name: 'chromium', dependencies: ['setup'], testIgnore: /auth\.setup\.ts$/ },
  ],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    locale: 'en-US',
    viewport: { width: 1600, height: 900 },
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    command: 'node e2e/serve.mjs',
    gracefulShutdown: { signal: 'SIGTERM', timeout: 30_000 },
    url: `http://127.0.0.1:${PORT}/static-config/mqtt.json`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    env: {
      PORT: String(PORT),
      HOST: '127.0.0.1',
      CAPTCHA: 'off',
      ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
      OPERATOR_PASSWORD: E2E_OPERATOR_PASSWORD,
      // A free port of the system's choosing: the simulator plays the demo archive's devices on it, so the
      // operation journeys send real commands (and parallel runs on one machine never share a port).
      MQTT_TCP_PORT: '0',
      // The journeys make their own data: a month of demo history read while they run would only slow them.
      DEMO_HISTORY_DAYS: '0',
      LOG_LEVEL: 'warn',
      LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
      PUBLIC_RATE_LIMIT_PER_MINUTE: '10000',
    },
  },
});
