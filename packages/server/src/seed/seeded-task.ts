/** About ten years of days: a seeded task does not run out while anyone looks at it. */
const OCCURRENCES = 3650;

/**
 * What the seeded daily collection tasks (the demo's and the scale seed's) have in common: admin's, daily
 * from `start` for about ten years, with a new task's priority, time-out and concurrency.
 */
export function seededDailyTask(start: Date) {
  return {
    kind: 'collection',
    pri: 5,
    timeout: 30,
    planStatus: 'waiting',
    concurrent: 4,
    createdBy: 'admin',
    crontab: { starttime: start.getTime() / 1000, freq: 1, unit: 'day', count: OCCURRENCES },
  };
}

/** A seeded DCU's own collection task settings (the demo's and the scale seed's): every 15 minutes, reported hourly. */
export const SEEDED_DCU_TASK = {
  taskEnabled: true,
  taskGroup: 1,
  minCycleMinutes: 15,
  collectPeriodMinutes: 15,
  reportPeriodMinutes: 60,
  taskStart: '00:00',
  taskEnd: '23:59',
  maxSupplementDays: 3,
} as const;
