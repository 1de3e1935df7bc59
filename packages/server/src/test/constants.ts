export const TEST_ADMIN_PASSWORD = 'Admin@123';
export const TEST_OPERATOR_PASSWORD = 'Oper@123';

/**
 * How long a test waits for what the server writes after it has answered (the operation log is
 * written once the response is sent): generous, because a busy CI machine can take seconds.
 */
export const AFTER_RESPONSE = { timeout: 30_000, interval: 100 };

/**
 * The budget of a test that starts a fresh database (initdb, migrations, argon2 in the seed) or a
 * process of its own: seconds on an idle machine, but more than a minute while other work keeps both
 * cores busy.
 */
export const FRESH_START = { timeout: 300_000 };
