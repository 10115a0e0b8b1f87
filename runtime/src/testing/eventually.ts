import { inspect } from 'node:util';

/** How long {@link eventually} keeps trying, and what it names when it gives up. */
export interface EventuallyOptions {
  /** How long to keep trying, from the first try; default 10 s (CI is a loaded 2-core machine: tests assert what happens, never how fast, unless they say so). */
  readonly timeoutMs?: number;
  /** The pause between tries; default 20 ms. */
  readonly intervalMs?: number;
  /** What the test waits for, for the time-out's message ("the agent's inbox holds 3 entries"); a function is called then, to say what was seen. */
  readonly message?: string | (() => string);
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_INTERVAL_MS = 20;

type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined | void>;

/**
 * Tries `check` until it returns a truthy value, and resolves with that value; a try that throws
 * counts as "not yet". After `timeoutMs` it rejects with an Error naming `message`, the time waited
 * and the last value or error (the error also as `cause`). A try still running at the deadline is
 * not waited for.
 */
export async function eventually<T>(check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<Truthy<T>> {
  return attempt(check, (value) => Boolean(value), options) as Promise<Truthy<T>>;
}

/**
 * Tries `check` until it returns without throwing (`eventuallyPasses(() => { assert.equal(…); })`),
 * and resolves with what it returned; it gives up as {@link eventually} does, with the last
 * assertion's message (its diff included) in the error.
 */
export async function eventuallyPasses<T>(check: () => T | Promise<T>, options: EventuallyOptions = {}): Promise<T> {
  return attempt(check, () => true, options);
}

/** How long {@link steadily} keeps checking. */
export interface SteadilyOptions {
  /** How long `check` must keep holding, from the first try. */
  readonly forMs: number;
  /** The pause between tries; default 20 ms. */
  readonly intervalMs?: number;
  /** What must keep holding, for the failure's message; a function is called then, to say what was seen. */
  readonly message?: string | (() => string);
}

/**
 * Tries `check` again and again for `forMs` and fails at the first try that returns a falsy value or
 * throws (that error as `cause`): for what must hold steadily, not merely once (every agent served
 * after a fault, and still served). Resolves with the number of tries, each of which held.
 */
export async function steadily<T>(check: () => T | Promise<T>, options: SteadilyOptions): Promise<number> {
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const started = Date.now();
  for (let tries = 1; ; tries++) {
    let value: T;
    try {
      value = await check();
    } catch (error) {
      throw brokeOff(options.message, Date.now() - started, tries, `it threw: ${error instanceof Error ? error.message : inspect(error)}`, error);
    }
    if (!value) throw brokeOff(options.message, Date.now() - started, tries, `it returned ${inspect(value)}`);
    if (Date.now() - started >= options.forMs) return tries;
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, options.forMs - (Date.now() - started))));
  }
}

function brokeOff(message: SteadilyOptions['message'], afterMs: number, tries: number, how: string, cause?: unknown): Error {
  const what = (typeof message === 'function' ? message() : message) ?? 'the check';
  const error = new Error(`${what} stopped holding after ${afterMs} ms, at try ${tries}: ${how}`);
  if (cause !== undefined) error.cause = cause;
  return error;
}

type Outcome<T> = { value: T } | { error: unknown } | { late: true };

async function attempt<T>(check: () => T | Promise<T>, done: (value: T) => boolean, options: EventuallyOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const intervalMs = options.intervalMs ?? DEFAULT_INTERVAL_MS;
  const started = Date.now();
  const deadline = started + timeoutMs;
  let last: Outcome<T> | undefined;
  for (let tries = 1; ; tries++) {
    const outcome = await tryOnce(check, deadline);
    if ('value' in outcome && done(outcome.value)) return outcome.value;
    if (!('late' in outcome)) last = outcome;
    const left = deadline - Date.now();
    if (left <= 0) throw timedOut(options.message, Date.now() - started, tries, last);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}

/** One try, raced against the deadline so that a check that never settles cannot hold the test past it. */
async function tryOnce<T>(check: () => T | Promise<T>, deadline: number): Promise<Outcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<Outcome<T>>((resolve) => {
      timer = setTimeout(() => resolve({ late: true }), Math.max(0, deadline - Date.now()));
    });
    const tried = (async (): Promise<Outcome<T>> => ({ value: await check() }))().catch((error: unknown) => ({ error }));
    return await Promise.race([tried, late]);
  } finally {
    clearTimeout(timer);
  }
}

function timedOut<T>(message: EventuallyOptions['message'], waitedMs: number, tries: number, last: Outcome<T> | undefined): Error {
  const what = (typeof message === 'function' ? message() : message) ?? 'the check';
  const lastly =
    last === undefined
      ? 'no try finished in time'
      : 'error' in last
        ? `last try threw: ${last.error instanceof Error ? last.error.message : inspect(last.error)}`
        : 'value' in last
          ? `last try returned ${inspect(last.value, { depth: 3, breakLength: Infinity })}`
          : '';
  const error = new Error(`Timed out after ${waitedMs} ms (${tries} tries) waiting for ${what}; ${lastly}`);
  if (last && 'error' in last) error.cause = last.error;
  return error;
}
