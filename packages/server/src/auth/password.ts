import { hash, verify } from '@node-rs/argon2';

/** argon2id (Algorithm.Argon2id = 2; a const enum we cannot import) with OWASP's minimum: 19 MiB, 2 passes, 1 lane. */
const OPTIONS = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await verify(passwordHash, password);
  } catch {
    return false;
  }
}

let dummyHash: Promise<string> | undefined;
/** Spends the same time as a real check, so an unknown username is not told apart by timing. */
export async function burnPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword('meterdesk-timing-equaliser');
  await verifyPassword(await dummyHash, password);
}
