export const gis = {
  fields: {
    kinds: 'Show',
    gridId: 'Power grid',
    meterStatus: 'Meter status',
  },
  kinds: { consumer: 'Consumers', meter: 'Meters', dcu: 'DCUs' },
  kind: { consumer: 'Consumer', meter: 'Meter', dcu: 'DCU' },
  popup: {
    kind: 'Type',
    status: 'Status',
    protected: 'Life support / medical',
    regular: 'Regular supply',
    openDetail: 'Open detail',
  },
  legend: {
    title: 'Legend',
    cluster: 'Cluster: click to zoom in',
    meters: 'Meters by status',
  },
  clusterTitle: '{{count}} {{kind}}: click to zoom in',
  inView: '{{count}} in view',
  loading: 'Loading the map…',
  empty: 'Nothing in view: move the map, zoom out or change the filters',
  tilesOffline: 'Map tiles cannot be reached: positions are drawn on a plain background',
  noTiles: 'No map tiles configured: positions are drawn on a plain background',
};
