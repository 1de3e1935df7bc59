import pino from 'pino';

/** Cookies and credentials never reach a log line, whatever a later serializer adds. */
export const createLogger = (level: string) =>
  pino({ level, redact: ['req.headers.cookie', 'req.headers.authorization', 'res.headers["set-cookie"]'] });
