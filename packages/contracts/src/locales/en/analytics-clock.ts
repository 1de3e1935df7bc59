/** Clock monitoring: the meters' clock deviations and their clock sync. */
export const analyticsClock = {
  title: 'Clock monitoring',
  thresholdHelp: 'Meters whose latest clock check is off by at least this many seconds, either way',
  syncSelected: 'Sync clocks of the selected',
  confirmSync_one: 'Set the clock of {{count}} meter to the system time?',
  confirmSync_other: 'Set the clock of {{count}} meters to the system time?',
  offlineHint: 'Offline meters cannot be synced',
  empty: "No meter's clock is off by {{threshold}} s or more",
  fields: {
    deviationSeconds: 'Clock deviation (s)',
    checkedAt: 'Checked at',
    online: 'Online',
    meters: 'Meters',
    checked: 'Meters checked',
    beyond: 'Beyond the threshold',
    largest: 'Largest deviation (s)',
    band: 'Deviation',
    threshold: 'Threshold (s)',
  },
};
