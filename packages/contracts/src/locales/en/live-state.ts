/** A meter's live state (issue 17): its columns in the archive, and where it lies on the map. */
export const liveState = {
  fields: {
    linkState: 'Online',
    lastCommTime: 'Last communication',
    relayState: 'Relay',
    lastReading: 'Last reading (kWh)',
    lastReadTime: 'Last reading time',
  },
  linkStates: { online: 'Online', offline: 'Offline' },
  relayStates: { 0: 'Disconnected', 1: 'Connected', 2: 'Ready to reconnect' },
};

/** The never-read and stopped meters of the collection report, grouped for field crews (issue 17). */
export const silentMeters = {
  groupByLabel: 'Group by',
  ungrouped: 'Meters',
  groupBy: { dcu: 'DCU', moduleType: 'Module type', supplier: 'Supplier', grid: 'Grid node' },
  none: {
    dcu: 'Direct meters (no DCU)',
    moduleType: 'No module',
    supplier: 'No supplier',
    grid: 'No grid node',
  },
  meters: 'Meters',
  showMeters: 'Show its meters',
  filtered: 'Only',
  clearFilters: 'Show all',
  fields: { moduleType: 'Module type', supplierName: 'Supplier' },
  exportNames: { neverRead: 'Meters never read by {{group}}', stopped: 'Meters stopped reading by {{group}}' },
  analyticsLink: 'Meters that never read or stopped reading',
};
