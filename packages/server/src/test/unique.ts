import { randomBytes } from 'node:crypto';

/**
 * `name` with a suffix no other test file or run shares. On the PostgreSQL pass all test files (and
 * any other run on the machine) share one Mosquitto, where a topic named after a fixed test user or
 * word would hear the others' messages; a username works here too (letters, digits and `-`).
 */
export const uniqueName = (name: string) => `${name}-${randomBytes(4).toString('hex')}`;
