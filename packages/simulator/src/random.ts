/*
 * Counter-based randomness: every draw is a pure function of its inputs (seed, device, purpose,
 * time slot …), so the same seed gives the same fleet, and a past period re-read gives the same
 * numbers, with no generator state to keep per device.
 */

/** FNV-1a: a device key becomes the integer its draws are keyed by. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function mix(h: number, x: number): number {
  // Numbers past 32 bits (epoch milliseconds, day counts × slots) keep their high part.
  const lo = x | 0;
  const hi = Math.floor(x / 4294967296) | 0;
  h = Math.imul(h ^ lo, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15), 0x85ebca77);
  h = Math.imul(h ^ hi, 0xc2b2ae3d);
  return h ^ (h >>> 13);
}

/** Uniform in [0, 1) from integers. */
export function draw(a: number, b: number, c = 0, d = 0, e = 0): number {
  let h = mix(mix(mix(mix(mix(0x27d4eb2f, a), b), c), d), e);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** Purposes of draws: one namespace, so two knobs never read the same numbers. */
export const PURPOSE = {
  size: 1,
  base: 2,
  dayNoise: 3,
  slotNoise: 4,
  split: 5,
  instant: 6,
  powerOutage: 7,
  cover: 8,
  offline: 9,
  flapping: 10,
  flapState: 11,
  busy: 12,
  commandLoss: 13,
  replyLoss: 14,
  latency: 15,
  drift: 16,
  firmware: 17,
  heartbeat: 18,
  wiring: 19,
  prepaid: 20,
  flapPhase: 21,
  broadcastLoss: 22,
  credit: 23,
} as const;
