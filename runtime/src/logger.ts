import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger } from 'pino';

/** Paths that must never reach the log: tokens, secrets and message content. */
const REDACT = [
  'token',
  'securityToken',
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'body',
  'html',
  'text',
  'subject',
  'signingSecret',
  '*.token',
  '*.authToken',
  '*.apiKey',
  '*.body',
  '*.html',
  '*.text',
  '*.subject',
  '*.signingSecret',
  '*.channelSecret',
  '*.channelAccessToken',
];

export interface LoggerOptions {
  level: string;
  /** Readable output for a person at a terminal; JSON otherwise. Wins over `format`. */
  pretty?: boolean;
  /** The LOG_FORMAT setting: `auto` (the default) is readable on a terminal, JSON otherwise. */
  format?: 'auto' | 'json' | 'pretty';
}

/** The process logger: JSON lines in production, readable when stdout is a terminal. */
export function createLogger(options: LoggerOptions): Logger {
  const format = options.format ?? 'auto';
  const readable = options.pretty ?? (format === 'auto' ? process.stdout.isTTY === true && process.env.NODE_ENV !== 'production' : format === 'pretty');
  const settings = { level: options.level, redact: { paths: REDACT, censor: '[redacted]' }, base: undefined };
  return readable ? pino(settings, readableStream()) : pino(settings);
}

/** Fields a request line shows in its message, so they are not repeated after it. */
const REQUEST_FIELDS = ['reqId', 'method', 'route', 'path', 'status', 'ms', 'agentId', 'code'];

/**
 * pino-pretty in this thread (a transport runs in a worker and cannot take a function), one line per
 * record: a request reads `GET /api/v1/usage 200 3.1 ms agent=a1 [reqId]`, other records keep their fields.
 */
function readableStream() {
  return pretty({
    colorize: true,
    singleLine: true,
    sync: true,
    translateTime: 'HH:MM:ss.l',
    ignore: 'pid,hostname',
    messageFormat: (log, messageKey) => {
      if (log[messageKey] !== 'request') return String(log[messageKey] ?? '');
      const where = log.path ?? log.route;
      const parts = [`${log.method} ${where} ${log.status} ${log.ms} ms`];
      if (log.agentId) parts.push(`agent=${log.agentId}`);
      if (log.code) parts.push(String(log.code));
      parts.push(`[${log.reqId}]`);
      for (const key of REQUEST_FIELDS) delete log[key];
      return parts.join(' ');
    },
  });
}
