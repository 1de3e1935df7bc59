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
