import {
  type DeviceCommand,
  type DeviceKind,
  type DeviceReply,
  deviceTopic,
  RESULT_CODES,
  type ResultCode,
} from '@meterdesk/contracts';
import type { HeadEnd } from '../headend/head-end';
import type { Broker } from '../mqtt/broker';

/** How a scripted device answers the next command: a code, or silence. */
export type Answer = ResultCode | 'silent' | ((command: DeviceCommand) => DeviceReply | null);

/**
 * A device played by the test itself on the test's broker, for what a whole simulator would hide:
 * a precise sequence of answers, a malformed or duplicated reply. Commands it received are kept.
 */
export async function scriptedDevice(broker: Broker, kind: DeviceKind, key: string, answers: Answer[] = []) {
  const received: DeviceCommand[] = [];
  const script = [...answers];
  const reply = (payload: unknown) => broker.publish(deviceTopic(kind, key, 'reply'), payload);
  const stop = await broker.subscribe(deviceTopic(kind, key, 'cmd'), (_topic, payload) => {
    const command = JSON.parse(payload.toString()) as DeviceCommand;
    received.push(command);
    const answer = script.shift() ?? RESULT_CODES.success;
    if (answer === 'silent') return;
    const message =
      typeof answer === 'function'
        ? answer(command)
        : { reqId: command.reqId, code: answer, items: command.items.map((i) => ({ obis: i.obis, value: i.value })) };
    if (message) void reply(message);
  });
  return {
    received,
    setOnline: (online: boolean) => broker.publish(deviceTopic(kind, key, 'status'), { online }, { retain: true }),
    reply,
    stop,
  };
}

/** Whether the head-end takes a device (not behind a DCU) to be online now. */
export const headEndOnline = async (headEnd: HeadEnd, kind: DeviceKind, key: string) =>
  (await headEnd.onlineStates([{ kind, key, viaDcu: null }])).get(`${kind}:${key}`) === true;
