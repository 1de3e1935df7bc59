/**
 * Timing helpers: percentiles, a closed loop of concurrent clients, and the bare replay of the
 * statements a server call sent.
 */

export function percentile(samples, p) {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const summary = (samples) => ({ n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95) });

/** `clients` loops, each running `once()` back to back until `calls` calls are done in all; answers each call's ms. */
export async function closedLoop(once, { clients, calls }) {
  const samples = [];
  let left = calls;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (left > 0) {
        left--;
        const started = performance.now();
        await once();
        samples.push(performance.now() - started);
      }
    }),
  );
  return samples;
}

/**
 * `clients` loops, each running `once()` back to back for `seconds` (a call under way at the end
 * finishes); answers each call's ms and the calls per second achieved.
 */
export async function timedLoop(once, { clients, seconds }) {
  const samples = [];
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        await once();
        samples.push(performance.now() - t0);
      }
    }),
  );
  return { samples, rate: samples.length / ((performance.now() - started) / 1000) };
}

/**
 * Runs the API and its bare twin in alternating rounds, so both see the same moments of a shared
 * machine; answers each side's samples.
 */
export async function alternate(sides, { clients, calls, rounds = 4 }) {
  const samples = Object.fromEntries(Object.keys(sides).map((name) => [name, []]));
  // A warm-up round of each, not counted: plans cached, connections open.
  for (const once of Object.values(sides)) await closedLoop(once, { clients, calls: clients * 5 });
  for (let round = 0; round < rounds; round++) {
    for (const [name, once] of Object.entries(sides)) {
      samples[name].push(...(await closedLoop(once, { clients, calls: Math.ceil(calls / rounds) })));
    }
  }
  return samples;
}

/** Statements of the session, permission and scope checks, and of the job system: not the call's own SQL. */
const NOT_THE_CALLS = /"sys_|pgboss\./;

/**
 * The call's own statements, replayed through `pool` as the server sends them: counting
 * (`select count(*)`) beside the rest, which run one after another.
 */
export function bareTwin(pool, statements) {
  const own = statements.filter((s) => !NOT_THE_CALLS.test(s.text));
  if (own.length === 0) throw new Error('the call sent no SQL of its own');
  const run = (s) => pool.query({ text: s.text, values: s.values, rowMode: s.rowMode });
  const counts = own.filter((s) => /^select count\(\*\)/i.test(s.text.trim()));
  const rest = own.filter((s) => !counts.includes(s));
  const once = async () => {
    await Promise.all([
      (async () => {
        for (const s of rest) await run(s);
      })(),
      ...counts.map(run),
    ]);
  };
  return { once, statements: own };
}

export const ms = (value) => value.toFixed(2).padStart(7);
