export const TEST_ADMIN_PASSWORD = 'Admin@123';
export const TEST_OPERATOR_PASSWORD = 'Oper@123';

/**
 * How long a test waits for what happens apart from its requests: device traffic over the broker, the
 * head-end's dispatch, what a device's answer or the simulator changes. Generous, because a busy CI
 * machine can take seconds. (What a request changes, its operation log entry included, is there when
 * it has answered: nothing waits for that.)
 */
export const EVENTUALLY = { timeout: 30_000, interval: 100 };

/**
 * The budget of a test that starts a fresh database (initdb, migrations, argon2 in the seed) or a
 * process of its own: seconds on an idle machine, but more than a minute while other work keeps both
 * cores busy.
 */
export const FRESH_START = { timeout: 300_000 };
