import type { MqttConfig } from '@meterdesk/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubApi } from '@/test/api-stub';
import { followTopics, MQTT_CONFIG_URL, RECONNECT_MS } from './broker-topics';

/** An MQTT packet the client sent, read as far as these tests need. */
interface Sent {
  type: number;
  body: Uint8Array;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const utf8 = (value: string) => {
  const bytes = new TextEncoder().encode(value);
  return [bytes.length >> 8, bytes.length & 0xff, ...bytes];
};

/** A broker's end of the WebSocket, played by the test: it reads the client's packets and answers. */
class FakeSocket {
  static all: FakeSocket[] = [];
  readyState = 0;
  binaryType = 'blob';
  sent: Sent[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((event: { data: ArrayBuffer }) => void) | null = null;
  onclose: (() => void) | null = null;
  onerror: (() => void) | null = null;

  constructor(
    readonly url: string,
    readonly protocols: string[],
  ) {
    FakeSocket.all.push(this);
  }

  send(data: ArrayBuffer) {
    const bytes = new Uint8Array(data);
    let at = 1;
    while ((bytes[at++] ?? 0) & 0x80);
    this.sent.push({ type: (bytes[0] ?? 0) >> 4, body: bytes.subarray(at) });
  }

  close() {
    this.readyState = 3;
    this.onclose?.();
  }

  open() {
    this.readyState = 1;
    this.onopen?.();
  }

  receive(...bytes: number[]) {
    this.onmessage?.({ data: new Uint8Array(bytes).buffer });
  }

  /** The topics of each SUBSCRIBE so far, answered with `code` (0 granted, 0x80 refused). */
  acknowledgeSubscriptions(code = 0) {
    return this.sent
      .filter((packet) => packet.type === 8)
      .map(({ body }) => {
        this.receive(0x90, 3, body[0] ?? 0, body[1] ?? 0, code);
        return text(body.subarray(4, 4 + (((body[2] ?? 0) << 8) | (body[3] ?? 0))));
      });
  }

  publish(topic: string, payload: string) {
    const rest = [...utf8(topic), ...new TextEncoder().encode(payload)];
    this.receive(0x30, rest.length, ...rest);
  }
}

const config: MqttConfig = { url: '/mqtt', protocolVersion: 4, topics: { unread: 'notice/{username}/unread' } };

function follow(topics: string[], url: string | null = config.url) {
  stubApi({ [MQTT_CONFIG_URL]: () => ({ body: { ...config, url } }) });
  const heard: { topic: string; payload: string }[] = [];
  const live: boolean[] = [];
  const stop = followTopics(() => topics, {
    onMessage: (topic, payload) =>
      heard.push({ topic, payload: typeof payload === 'string' ? payload : text(payload) }),
    onLive: (value) => live.push(value),
  });
  return { heard, live, stop };
}

/** The client's next socket, opened and its CONNECT accepted. */
async function connected(count: number) {
  await vi.waitFor(() => expect(FakeSocket.all).toHaveLength(count), { timeout: 10_000 });
  const socket = FakeSocket.all[count - 1] as FakeSocket;
  socket.open();
  socket.receive(0x20, 2, 0, 0);
  return socket;
}

describe('followTopics', () => {
  // The broker is behind this page's host. The files sharing this worker may leave the page at a URL
  // without one (ws:///mqtt, which paho refuses), so each test sets the page it runs on.
  beforeEach(() => {
    (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(
      'http://meterdesk.test/dashboard',
    );
  });

  afterEach(() => {
    FakeSocket.all = [];
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('speaks MQTT 3.1.1 over the mqtt subprotocol to the broker behind this host, and hears its topics', async () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const { heard, live, stop } = follow(['a/1', 'a/2', 'a/1']);
    const socket = await connected(1);

    expect(socket.url).toBe('ws://meterdesk.test/mqtt');
    expect(socket.protocols).toEqual(['mqtt']);
    expect(socket.binaryType).toBe('arraybuffer');
    const connect = socket.sent[0] as Sent;
    expect(connect.type).toBe(1);
    // Protocol "MQTT", level 4 (3.1.1), clean session.
    expect([...connect.body.subarray(0, 8)]).toEqual([0, 4, 77, 81, 84, 84, 4, 0x02]);
    expect(live).toEqual([]);
    expect(socket.acknowledgeSubscriptions()).toEqual(['a/1', 'a/2']);
    expect(live).toEqual([true]);

    socket.publish('a/2', '{"count":3}');
    socket.publish('b/9', 'not followed');
    expect(heard).toEqual([{ topic: 'a/2', payload: '{"count":3}' }]);

    stop();
    expect(socket.sent.at(-1)?.type).toBe(14);
    expect(socket.readyState).toBe(3);
    expect(live).toEqual([true]);
  });

  it('is not live when the broker refuses a topic', async () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const { live, stop } = follow(['a/1']);
    const socket = await connected(1);
    socket.acknowledgeSubscriptions(0x80);
    expect(live).toEqual([false]);
    stop();
  });

  it('connects again every few seconds after a drop and subscribes anew; a stop ends that', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vi.stubGlobal('WebSocket', FakeSocket);
    const { heard, live, stop } = follow(['a/1']);
    const first = await connected(1);
    first.acknowledgeSubscriptions();

    first.close();
    expect(live).toEqual([true, false]);
    vi.advanceTimersByTime(RECONNECT_MS - 1);
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    // A try that fails is followed by another.
    await vi.waitFor(() => expect(FakeSocket.all).toHaveLength(2), { timeout: 10_000 });
    FakeSocket.all[1]?.close();
    vi.advanceTimersByTime(RECONNECT_MS);
    const third = await connected(3);
    expect(third.acknowledgeSubscriptions()).toEqual(['a/1']);
    expect(live).toEqual([true, false, false, true]);
    third.publish('a/1', 'again');
    expect(heard).toEqual([{ topic: 'a/1', payload: 'again' }]);

    // Stopped while connected: it says goodbye and does not come back.
    stop();
    expect(third.sent.at(-1)?.type).toBe(14);
    vi.advanceTimersByTime(RECONNECT_MS * 3);
    expect(FakeSocket.all).toHaveLength(3);
    expect(live).toEqual([true, false, false, true]);
  });

  it('stops waiting to connect again when stopped after a drop', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    vi.stubGlobal('WebSocket', FakeSocket);
    const { live, stop } = follow(['a/1']);
    const socket = await connected(1);
    socket.close();
    stop();
    vi.advanceTimersByTime(RECONNECT_MS * 3);
    expect(FakeSocket.all).toHaveLength(1);
    expect(live).toEqual([false]);
  });

  it('stays silent without a broker', async () => {
    vi.stubGlobal('WebSocket', FakeSocket);
    const warn = vi.spyOn(console, 'warn');
    const { live } = follow(['a/1'], null);
    await vi.waitFor(() => expect(vi.mocked(fetch)).toHaveBeenCalledWith(MQTT_CONFIG_URL, expect.anything()), {
      timeout: 10_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(FakeSocket.all).toEqual([]);
    expect(live).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });
});
