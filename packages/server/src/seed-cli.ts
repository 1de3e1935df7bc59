import { pathToFileURL } from 'node:url';
import { type Config, loadConfig } from './config';
import { openForCommand } from './db/open-for-command';
import { METERS_PER_AREA, seedScaleArchive } from './seed/scale-archive';
import { HISTORY_DEFAULTS } from './seed/scale-history';

const USAGE = `Usage (from the repository root, with the server's environment):
  npm run seed -- --meters N [--days D [--profile-days P] [--profile-every K]] [--database-url URL] [--batch N]
      adds N meters, each with a consumer, a module and a POC, under a region of its own:
      substations, feeders, and transformer areas of ${METERS_PER_AREA} meters with a DCU each.
      Every key starts with the run's code, so runs can be repeated; a run writes all or nothing.
  --days D   also writes D days of history before today and today so far, as if the fleet had been
      collected all along (the simulator's meters' values): daily and monthly frozen registers, events
      (outages, cover openings, power-down/up storms of whole transformer areas, clock-invalid events with
      their clock checks), link changes, the devices' link state and supply, the rollups of all of it, and a
      daily collection task (disabled) with one run a day and its KPIs. Collection misses some days, intervals
      and meters, as in the field.
      Raw 15-minute load profile rows are not all written (96 a meter a day: 864 M for 100,000 meters over
      90 days): only on the last P days, today counting as one (--profile-days, default ${HISTORY_DEFAULTS.profileDays}),
      and over the whole history for every K-th meter (--profile-every, default ${HISTORY_DEFAULTS.profileEvery}; 0 for none).
      The rollups count every interval collected, written or not.`;

const count = (n: number) => n.toLocaleString('en-US');

export interface SeedArgs {
  meters: number;
  batchSize: number;
  databaseUrl: string | undefined;
  /** Days of history, with how much of the load profile; none without --days. */
  history?: { days: number; profileDays: number; profileEvery: number };
}

const COUNTS = { '--meters': 'meters', '--batch': 'batchSize' } as const;
const HISTORY_COUNTS = {
  '--days': 'days',
  '--profile-days': 'profileDays',
  '--profile-every': 'profileEvery',
} as const;

/** The command's flags, or null when they make no sense. */
export function parseSeedArgs(args: readonly string[]): SeedArgs | null {
  const parsed: SeedArgs = { meters: 0, batchSize: 10_000, databaseUrl: undefined };
  const history: Partial<Record<(typeof HISTORY_COUNTS)[keyof typeof HISTORY_COUNTS], number>> = {};
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i] ?? '', args[i + 1]];
    if (value === undefined) return null;
    if (flag === '--database-url') parsed.databaseUrl = value;
    else if (flag in COUNTS) {
      if (!/^[1-9]\d{0,8}$/.test(value)) return null;
      parsed[COUNTS[flag as keyof typeof COUNTS]] = Number(value);
    } else if (flag in HISTORY_COUNTS) {
      // A history of up to ten years; none of its counts is larger.
      if (!/^\d{1,4}$/.test(value) || Number(value) > 3660) return null;
      history[HISTORY_COUNTS[flag as keyof typeof HISTORY_COUNTS]] = Number(value);
    } else return null;
  }
  if (parsed.meters <= 0) return null;
  if (Object.keys(history).length === 0) return parsed;
  if (!history.days) return null;
  parsed.history = {
    days: history.days,
    profileDays: history.profileDays ?? HISTORY_DEFAULTS.profileDays,
    profileEvery: history.profileEvery ?? HISTORY_DEFAULTS.profileEvery,
  };
  return parsed;
}

/** Runs the command on the server's database, or on `--database-url`; answers the exit code. */
export async function runSeed(
  config: Pick<Config, 'databaseUrl' | 'dataDir'>,
  args: readonly string[],
  out: (line: string) => void,
): Promise<number> {
  const parsed = parseSeedArgs(args);
  if (!parsed) {
    out(USAGE);
    return 2;
  }
  const database = await openForCommand(
    { dataDir: config.dataDir, databaseUrl: parsed.databaseUrl ?? config.databaseUrl },
    'seed command',
    out,
  );
  if (!database) return 1;
  try {
    const history = parsed.history;
    out(
      `Adding ${count(parsed.meters)} meters${history ? ` with ${history.days} days of history` : ''} on ${database.kind === 'postgres' ? 'PostgreSQL (COPY)' : 'PGlite'}…`,
    );
    if (history)
      out(
        `  load profile rows: every meter's on the last ${history.profileDays} days (today one of them)` +
          (history.profileEvery ? `, every ${history.profileEvery}th meter's on all days` : ''),
      );
    const result = await seedScaleArchive(database, {
      meters: parsed.meters,
      batchSize: parsed.batchSize,
      ...(history ? { history } : {}),
      onProgress: (p) =>
        out(
          `  ${count(p.meters)} / ${count(p.total)} meters, ${count(p.rows)} rows, ${count(Math.round(p.rows / p.seconds))} rows/s`,
        ),
    });
    out(
      `Run ${result.run}: ${count(result.meters)} meters (${count(result.rows)} rows) in ${result.seconds.toFixed(1)} s, ` +
        `${count(Math.round(result.rows / result.seconds))} rows/s, under grid node ${result.run}.`,
    );
    return 0;
  } finally {
    await database.close();
  }
}

async function main(): Promise<void> {
  process.exitCode = await runSeed(loadConfig(), process.argv.slice(2), (line) => process.stdout.write(`${line}\n`));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
