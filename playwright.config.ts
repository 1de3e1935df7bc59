import { defineConfig } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 8199);
export const E2E_ADMIN_PASSWORD = 'Admin@123';
export const E2E_OPERATOR_PASSWORD = 'Oper@123';

/**
 * The journeys run against the production build served by the real server, on a fresh
 * PGlite data directory and the embedded broker, in Debian's Chromium.
 */
export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: process.env.PLAYWRIGHT_JSON_OUTPUT_NAME ?? '.tmp/reports/e2e.json' }]],
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    locale: 'en-US',
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
    command: 'rm -rf .tmp/e2e-data && node --import tsx packages/server/src/main.ts',
    url: `http://127.0.0.1:${PORT}/static-config/mqtt.json`,
    reuseExistingServer: false,
    timeout: 120_000,
    stdout: 'pipe',
    env: {
      PORT: String(PORT),
      HOST: '127.0.0.1',
      DATA_DIR: '.tmp/e2e-data',
      CAPTCHA: 'off',
      ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
      OPERATOR_PASSWORD: E2E_OPERATOR_PASSWORD,
      MQTT_TCP_PORT: 'off',
      LOG_LEVEL: 'warn',
      LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
      PUBLIC_RATE_LIMIT_PER_MINUTE: '10000',
    },
  },
});
