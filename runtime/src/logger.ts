import { pino, type Logger } from 'pino';

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
  /** Readable output for a person at a terminal; JSON otherwise. */
  pretty?: boolean;
}

/** The process logger: JSON lines in production, readable when stdout is a terminal. */
export function createLogger(options: LoggerOptions): Logger {
  const pretty = options.pretty ?? (process.stdout.isTTY === true && process.env.NODE_ENV !== 'production');
  return pino({
    level: options.level,
    redact: { paths: REDACT, censor: '[redacted]' },
    base: undefined,
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } } : {}),
  });
}
