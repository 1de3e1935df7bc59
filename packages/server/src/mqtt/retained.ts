import { Readable } from 'node:stream';
import type { AedesPersistence, Packet } from 'aedes-persistence';
import memory from 'aedes-persistence';

const isExact = (pattern: string) => !pattern.includes('+') && !pattern.includes('#');
/** What a retained message is: a publish (aedes types every stored packet as any packet). */
type Retained = Packet & { topic: string; payload: Buffer | string };

/**
 * Aedes' in-memory persistence, with retained messages found by topic for a subscription without
 * wildcards. Aedes answers each new subscription by testing every retained message against it: with
 * a retained status per device, a DCU (re)connecting with its hundred meters' command topics tested
 * a hundred times every device's status (a field run's server spent more CPU there than on its
 * readings' parsing), and a fleet reconnecting together is quadratic. Devices subscribe to exact topics
 * only, so their lookups become one map read each; a pattern with wildcards is answered as before.
 */
export function retainedByTopic(persistence: AedesPersistence = memory()): AedesPersistence {
  const byTopic = new Map<string, Retained>();
  return new Proxy(persistence, {
    get(target, property) {
      if (property === 'storeRetained')
        return (packet: Retained, done: Parameters<AedesPersistence['storeRetained']>[1]) => {
          if (packet.payload.length === 0) byTopic.delete(packet.topic);
          else byTopic.set(packet.topic, { ...packet });
          return target.storeRetained(packet, done);
        };
      if (property === 'createRetainedStreamCombi')
        return (patterns: string[]) =>
          patterns.every(isExact)
            ? Readable.from(patterns.flatMap((topic) => byTopic.get(topic) ?? []))
            : target.createRetainedStreamCombi(patterns);
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
