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
  /** A relay whose state the meter never reported. */
  relayUnknown: 'Unknown',
  showOnMap: 'Show on map',
  search: {
    placeholder: 'Find a meter, consumer or DCU by number or name',
    empty: 'Nothing found in your grid',
    more: 'More match: type more to narrow the search',
  },
  placement: {
    consumer: "Approximate: at its consumer's position",
    dcu: "Approximate: at its DCU's position",
    none: 'Not on the map',
  },
  notOnMap: '{{label}} is not on the map: neither it, nor its consumer or DCU, has a position',
  unplaced: {
    button_one: '{{shown}} meter without coordinates',
    button_other: '{{shown}} meters without coordinates',
    title: 'Meters without coordinates',
    hint: 'These meters have no coordinates of their own. The map places one at its consumer’s or its DCU’s position when those have one; the others are not on the map until their coordinates are entered.',
    place: 'On the map',
    show: 'Show',
  },
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
