import mqtt from 'mqtt';

/**
 * An MQTT client that settles on the first of connect, error or close, like a device that does not
 * retry: a refused connection fails the test at once instead of reconnecting until it times out.
 */
export function connectOnce(url: string, options: mqtt.IClientOptions = {}): Promise<mqtt.MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 3000, ...options });
    client.once('connect', () => resolve(client));
    const fail = (reason: unknown) => {
      client.end(true);
      reject(reason instanceof Error ? reason : new Error('connection closed'));
    };
    client.once('error', fail);
    client.once('close', () => fail(new Error('connection closed')));
  });
}
