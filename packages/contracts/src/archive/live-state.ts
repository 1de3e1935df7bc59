import { z } from 'zod';
import { field } from '../common/entity';
import { RELAY_STATES } from '../device/protocol';
import { choice } from './enums';

/*
 * A meter's live state as the archive shows it (issue 17): reachable or not, when it last
 * communicated, where its main relay is, and its newest register read. Kept by the server as devices
 * deliver (`meter_live`), declared once here for the meter's list, filters, detail and export.
 */

/** Reachable now (its own status and, behind a DCU, the DCU's), or not. */
export const LINK_STATES = ['online', 'offline'] as const;
export type LinkState = (typeof LINK_STATES)[number];

/** The main relay's control state (class 70). */
export const RELAY_STATE_VALUES = [
  RELAY_STATES.disconnected,
  RELAY_STATES.connected,
  RELAY_STATES.readyForReconnection,
] as const;

export const linkStateField = () => choice('liveState', 'linkState', 'linkStates', LINK_STATES);
export const relayStateField = () => choice('liveState', 'relayState', 'relayStates', RELAY_STATE_VALUES);

const moment = (name: string) =>
  field(z.string().nullable().describe('ISO 8601; null: never'), {
    label: `liveState.fields.${name}`,
    widget: 'datetime',
  });

/** The record's live members, spread into the meter record. */
export const meterLiveFields = {
  linkState: linkStateField(),
  lastCommTime: moment('lastCommTime'),
  relayState: relayStateField().nullable(),
  /** Active energy import, kWh: the newest register the meter delivered. */
  lastReading: field(z.number().nullable(), { label: 'liveState.fields.lastReading', widget: 'number' }),
  lastReadTime: moment('lastReadTime'),
};
