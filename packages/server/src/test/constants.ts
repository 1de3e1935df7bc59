export const TEST_ADMIN_PASSWORD = 'Admin@123';
export const TEST_OPERATOR_PASSWORD = 'Oper@123';

/**
 * How long a test waits for what the server writes after it has answered (the operation log is
 * written once the response is sent): generous, because a busy CI machine can take seconds.
 */
export const AFTER_RESPONSE = { timeout: 30_000, interval: 100 };
