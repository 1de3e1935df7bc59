import { IdSchema, type MqttConfig, matchBrowserTopic, noticeUnreadTopic, PUBLIC, SESSION } from '@meterdesk/contracts';
import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createWebSocketStream } from 'ws';
import { permittedUris, type SessionStore } from '../auth/session';
import type { Config } from '../config';
import type { Db } from '../db/driver';
import { anyRow } from '../db/rows';
import { powerGrid } from '../db/schema';
import { gridScope, resolveScope } from '../rbac/scope';
import type { Broker, BrowserPolicy } from './broker';

export const MQTT_PATH = '/mqtt';

/** Who started a job, so that only they follow its `progress/{jobId}` topic. The job system implements it. */
export interface JobOwners {
  /** The username that started the job, or null when unknown (the subscription is refused). */
  jobOwner(jobId: string): Promise<string | null>;
}

/** The broker asks this for every browser subscription: the topic table in contracts decides. */
export function browserPolicy(db: Db, jobs: JobOwners): BrowserPolicy {
  return {
    maySubscribe: async (session, topic) => {
      const match = matchBrowserTopic(topic);
      if (!match) return false;
      const { resource, owner } = match.topic;
      if (resource) {
        const held = await permittedUris(db, session.userId);
        if (!(typeof resource === 'string' ? [resource] : resource).some((uri) => held.has(uri))) return false;
      }
      if (owner === 'user') return match.params.username === session.username;
      if (owner === 'grid') return gridInScope(db, session.userId, match.params.gridId);
      const jobId = match.params.jobId;
      return jobId !== undefined && (await jobs.jobOwner(jobId)) === session.username;
    },
  };
}

/** A grid node that exists and lies within the user's grid scope, read now (a scope changed since login counts). */
async function gridInScope(db: Db, userId: string, gridId: string | undefined): Promise<boolean> {
  if (!IdSchema.safeParse(gridId).success) return false;
  const scope = await resolveScope(db, userId);
  return anyRow(db, powerGrid, and(eq(powerGrid.id, gridId as string), gridScope(scope, powerGrid.id)));
}

/** What the browser needs to reach the broker: spec §7 `GET /static-config/mqtt.json`. */
export function registerBrowserMqtt(
  app: FastifyInstance,
  deps: { broker: Broker; config: Config; db: Db; sessions: SessionStore; jobs: JobOwners },
): void {
  app.get(
    '/static-config/mqtt.json',
    { config: { access: PUBLIC } },
    async (): Promise<MqttConfig> => ({
      url: deps.broker.kind === 'embedded' ? MQTT_PATH : (deps.config.mqttWsUrl ?? null),
      protocolVersion: 4,
      topics: { unread: noticeUnreadTopic('{username}') },
    }),
  );

  const { acceptBrowser, endBrowserSessions, browserSessions } = deps.broker;
  if (!acceptBrowser) return;
  if (endBrowserSessions) {
    const stop = deps.sessions.onEnded((ended) => endBrowserSessions(ended));
    // An idle or absolute time-out happens without a request to notice it: look at the connected ones.
    const sweep = setInterval(() => {
      if (!browserSessions) return;
      deps.sessions.purgeExpired(browserSessions()).catch((err: unknown) => app.log.warn({ err }, 'session sweep'));
    }, deps.config.browserSessionCheckMs);
    sweep.unref();
    app.addHook('onClose', async () => {
      clearInterval(sweep);
      stop();
    });
  }
  const policy = browserPolicy(deps.db, deps.jobs);
  // The access hook refuses the upgrade without a session, so only logged-in browsers reach the broker.
  app.get(MQTT_PATH, { websocket: true, config: { access: SESSION } }, (socket, req) => {
    const session = req.session;
    if (!session) {
      socket.close(4401, 'not logged in');
      return;
    }
    const { tokenHash, userId, username } = session;
    acceptBrowser(createWebSocketStream(socket), { tokenHash, userId, username }, policy);
  });
}
