import { type MqttConfig, noticeUnreadTopic, PUBLIC, SESSION } from '@meterdesk/contracts';
import type { FastifyInstance } from 'fastify';
import { createWebSocketStream } from 'ws';
import type { Config } from '../config';
import type { Broker } from './broker';

export const MQTT_PATH = '/mqtt';

/** What the browser needs to reach the broker: spec §7 `GET /static-config/mqtt.json`. */
export function registerBrowserMqtt(app: FastifyInstance, deps: { broker: Broker; config: Config }): void {
  app.get(
    '/static-config/mqtt.json',
    { config: { access: PUBLIC } },
    async (): Promise<MqttConfig> => ({
      url: deps.broker.kind === 'embedded' ? MQTT_PATH : (deps.config.mqttWsUrl ?? null),
      protocolVersion: 4,
      topics: { unread: noticeUnreadTopic('{username}') },
    }),
  );

  const { acceptBrowser } = deps.broker;
  if (!acceptBrowser) return;
  // The access hook refuses the upgrade without a session, so only logged-in browsers reach the broker.
  app.get(MQTT_PATH, { websocket: true, config: { access: SESSION } }, (socket, req) => {
    const username = req.session?.username;
    if (!username) {
      socket.close(4401, 'not logged in');
      return;
    }
    acceptBrowser(createWebSocketStream(socket), username);
  });
}
