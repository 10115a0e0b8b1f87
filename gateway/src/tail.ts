// `switchboard tail --agent <id>`: follows an agent's inbox live, one line per entry, for people debugging an
// agent. A client of the REST API like any other (through @switchboard/client): it reads from a cursor, keeps
// it, and after the server goes away reads again from the same cursor once it answers, so nothing is skipped.
import { createClient, isSwitchboardError, type InboxEntry } from '@switchboard/client';
import { SwitchboardError, ErrorCodes } from '@switchboard/sdk';

/** What the command line gave `tail`. */
export interface TailOptions {
  agent: string;
  url: string | undefined;
  token: string | undefined;
  /** Start after this cursor; absent: after the newest entry (only what comes from now on). */
  after: string | undefined;
  /** Print each entry as a JSON line instead of the one-line summary. */
  json: boolean;
}

/** Where it writes, what it reads, and what stops it (tests give their own). */
export interface TailIo {
  out(line: string): void;
  err(line: string): void;
  env: Record<string, string | undefined>;
  /** Aborted by SIGINT or SIGTERM when absent. */
  signal?: AbortSignal;
}

/** How often it reads once caught up: a line shows within this of its entry, and an idle tail costs one indexed read per interval. */
const POLL_INTERVAL_MS = 250;
/** The longest pause between tries while the server is away. */
const MAX_RETRY_DELAY_MS = 2000;

const processIo: TailIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

/** Runs `switchboard tail` until interrupted; answers the exit code. */
export async function runTail(options: TailOptions, io: TailIo = processIo): Promise<number> {
  const agentId = options.agent;
  const token = options.token ?? io.env.SWITCHBOARD_TOKEN;
  if (!token) throw refused("'tail' needs a token: set SWITCHBOARD_TOKEN (the agent's client token, or a team or orchestrator token), or pass --token");
  const baseUrl = options.url ?? io.env.SWITCHBOARD_URL ?? `http://127.0.0.1:${io.env.PORT || 3000}`;
  let after = options.after === undefined ? undefined : Number(options.after);
  if (after !== undefined && !(Number.isSafeInteger(after) && after >= 0)) throw refused(`--after must be a cursor (a whole number, 0 for the first entry), not '${options.after}'`);

  const client = createClient({ baseUrl, token });
  const stop = io.signal ? undefined : new AbortController();
  const signal = io.signal ?? stop!.signal;
  const interrupt = () => stop?.abort();
  if (stop) for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, interrupt);
  try {
    // The first read says whether the address, the token and the agent are right: a mistake ends the command here.
    const first = await client.GET('/api/v1/inbox', { params: { query: { agentId, limit: 1, ...(after === undefined ? {} : { after }) } } }).catch((err: unknown) => {
      throw new SwitchboardError(ErrorCodes.UNAVAILABLE, `no answer from ${baseUrl} (${describe(err)}); is the server running? Set SWITCHBOARD_URL or --url`);
    });
    if (first.error !== undefined || !first.data) throw new SwitchboardError(first.error?.code ?? 'INTERNAL', `${baseUrl}: ${first.error?.error ?? `HTTP ${first.response.status}`}`);
    after ??= first.data.lastCursor;
    io.err(`switchboard tail: agent ${agentId} at ${baseUrl}, after cursor ${after} (Ctrl-C to stop)`);

    let away = false;
    for await (const entry of client.inbox({
      agentId,
      after,
      follow: true,
      pollIntervalMs: POLL_INTERVAL_MS,
      maxRetryDelayMs: MAX_RETRY_DELAY_MS,
      signal,
      onRetry: (err, attempt, delayMs) => {
        if (attempt === 1 || attempt % 10 === 0) io.err(`switchboard tail: ${describe(err)}; reading again from cursor ${after} (every ${delayMs / 1000}s until it answers)`);
        away = true;
      },
    })) {
      if (away) {
        io.err(`switchboard tail: reconnected at cursor ${after}`);
        away = false;
      }
      after = entry.cursor;
      io.out(options.json ? JSON.stringify(entry) : formatEntry(entry));
    }
    return 0;
  } finally {
    if (stop) for (const name of ['SIGINT', 'SIGTERM'] as const) process.off(name, interrupt);
  }
}

/** One line for an entry: time, cursor, type, channel, direction and counterpart, status, then what it says. */
export function formatEntry(entry: InboxEntry): string {
  const p = entry.payload;
  const inbound = entry.type === 'message.received' || entry.type === 'voicemail' || p.direction === 'inbound';
  const parts = [entry.createdAt, `#${entry.cursor}`, entry.type, entry.channel, `${inbound ? '<-' : '->'} ${entry.counterpart}`];
  if (entry.status !== null && entry.type !== 'message.received') parts.push(entry.status);
  if (typeof p.subject === 'string' && p.subject) parts.push(`subject ${quote(p.subject)}`);
  if (typeof p.body === 'string') parts.push(quote(p.body));
  if (Array.isArray(p.transcript)) parts.push(`${p.transcript.length} turn(s)`);
  for (const key of ['error', 'reason'] as const) if (p[key]) parts.push(`${key}: ${quote(String(p[key]))}`);
  return parts.join('  ');
}

/** A value on one line: JSON-quoted (line breaks escaped) and cut at 200 characters. */
function quote(text: string): string {
  return JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text);
}

function describe(err: unknown): string {
  if (isSwitchboardError(err)) return `${err.status} ${err.code}: ${err.message}`;
  const cause = (err as { cause?: { code?: string; message?: string } })?.cause;
  return cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
}

function refused(message: string): SwitchboardError {
  return new SwitchboardError(ErrorCodes.VALIDATION_FAILED, message);
}
