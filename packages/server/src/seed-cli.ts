import { pathToFileURL } from 'node:url';
import { openForCommand } from './admin-cli';
import { type Config, loadConfig } from './config';
import { METERS_PER_AREA, seedScaleArchive } from './db/scale-archive';

const USAGE = `Usage (from the repository root, with the server's environment):
  npm run seed -- --meters N [--database-url URL] [--batch N]
      adds N meters, each with a consumer, a module and a POC, under a region of its own:
      substations, feeders, and transformer areas of ${METERS_PER_AREA} meters with a DCU each.
      Every key starts with the run's code, so runs can be repeated; a run writes all or nothing.`;

const count = (n: number) => n.toLocaleString('en-US');

export interface SeedArgs {
  meters: number;
  batchSize: number;
  databaseUrl: string | undefined;
}

/** The command's flags, or null when they make no sense. */
export function parseSeedArgs(args: readonly string[]): SeedArgs | null {
  const parsed: SeedArgs = { meters: 0, batchSize: 10_000, databaseUrl: undefined };
  for (let i = 0; i < args.length; i += 2) {
    const [flag, value] = [args[i], args[i + 1]];
    if (value === undefined) return null;
    if (flag === '--database-url') parsed.databaseUrl = value;
    else if (flag === '--meters' || flag === '--batch') {
      if (!/^[1-9]\d{0,8}$/.test(value)) return null;
      parsed[flag === '--meters' ? 'meters' : 'batchSize'] = Number(value);
    } else return null;
  }
  return parsed.meters > 0 ? parsed : null;
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
    out(`Adding ${count(parsed.meters)} meters on ${database.kind === 'postgres' ? 'PostgreSQL (COPY)' : 'PGlite'}…`);
    const result = await seedScaleArchive(database, {
      meters: parsed.meters,
      batchSize: parsed.batchSize,
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
