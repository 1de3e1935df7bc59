// The server tests that exercise what differs between PGlite + the embedded broker and PostgreSQL + an
// external broker: the jobs on PGlite's socket bridge, COPY and bulk writes, the broker and what runs on it
// (head-end, simulator, notices, operations, collection runs), PGlite's turns between requests and background
// work, the readings' partitions and rollups, and the archive counts' triggers under either bulk write.
// Where PostgreSQL or Mosquitto answers, `npm test` runs the whole suite on them and only these again on
// the embedded defaults. The tests that open a PGlite of their own (first start, data directory, demo
// archive) run the same in either pass, so they run once. Each entry is vitest's file filter: a part of a
// test file's path.
export const EMBEDDED_PATH_TESTS = [
  'src/db/archive-counts.',
  'src/db/bulk-insert.',
  'src/db/driver.',
  'src/jobs/',
  'src/readings/',
  'src/mqtt/',
  'src/headend/',
  'src/auth/auth.jobs.',
  'src/modules/system/log-retention.',
  'src/modules/system/notice.',
  'src/modules/operations/',
  'src/modules/collection/run.',
  'src/seed/demo-history.',
  'src/modules/outage/',
  'src/modules/firmware/',
  'src/modules/archive/import/',
  'src/modules/archive/meter-import.',
  'src/modules/archive/consumer-import.',
  'src/modules/archive/record-imports.',
];
