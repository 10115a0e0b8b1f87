import type autocannon from 'autocannon';

/** What a scenario aims for; a row meets it only when it also has no errors. */
export interface Target {
  /** Shown in the table and BENCHMARKS.md, e.g. "≥ 25 % of bare uWS, p99 ≤ 20 ms". */
  readonly description: string;
  /** Lowest acceptable rate as a fraction of the bare uWS ceiling of the same run. */
  readonly minRatioToUws?: number;
  /** Lowest acceptable rate in successful requests per second. */
  readonly minRate?: number;
  /** Highest acceptable 99th percentile latency in milliseconds. */
  readonly maxP99Ms?: number;
  /** Fewest concurrent connections (calls, sessions) a row must hold to count. */
  readonly minConnections?: number;
}

/** One load run: where to send what. Any autocannon request option may be passed through. */
export interface LoadSpec
  extends Pick<autocannon.Options, 'url' | 'method' | 'headers' | 'body' | 'requests' | 'setupClient' | 'pipelining' | 'overallRate' | 'timeout'> {
  /** Row name in the table, e.g. "health" or "provision (email)". */
  readonly label: string;
  /** Concurrent connections; the run's `--connections` when unset. */
  readonly connections?: number;
  /** Free text shown in the notes column. */
  readonly notes?: string;
  /** Whose CPU the measured window charges to each successful response (the server under test). */
  readonly cpu?: CpuProbe;
  /**
   * Answers the warm-up must have had before the window opens: it goes on in rounds of the run's
   * warm-up seconds until it has (at most a few more rounds; none with `--warmup 0`). A target that
   * spreads the work over several processes compiles the same code in each, so time alone warms it less.
   */
  readonly warmupResponses?: number;
  /** Awaited after the warm-up, before the measured window opens (e.g. until queued work has drained). */
  beforeWindow?(): Promise<void> | void;
  /** Awaited after the measured load, before the CPU window closes: work the server finishes after its responses. */
  afterWindow?(): Promise<void> | void;
}

/**
 * The process (or processes) whose CPU a load run reads over its measured window, and what one unit
 * of its work is called: one server by `pid`, or a cluster by `parts`, one per process or group.
 */
export type CpuProbe = { readonly pid: number; readonly unit: string; readonly whose?: string } | CpuGroupProbe;

/** Several processes: the row's CPU is their sum, and each part is kept for the breakdown. */
export interface CpuGroupProbe {
  readonly parts: readonly CpuPart[];
  /** One unit of work, singular: "request", "webhook", "send". */
  readonly unit: string;
  /** Whose CPU the sum is, for the notes; default "server". */
  readonly whose?: string;
}

/** One named part of a group: its processes, looked up when the window opens and when it closes. */
export interface CpuPart {
  readonly whose: string;
  pids(): readonly number[];
}

/** CPU time one process spent over a measured window, and the work it did in that window. */
export interface CpuPerUnit {
  /** "server", "floor server", "load process (twilio SDK)", … */
  readonly whose: string;
  /** User + system CPU time over the window, every thread. */
  readonly cpuSeconds: number;
  readonly windowSeconds: number;
  /** Units of work done in the window: successful responses, notifications, call-seconds. */
  readonly units: number;
  /** One unit, singular: "webhook", "call-second". */
  readonly unit: string;
  /** How the table shows CPU per unit; default µs. */
  readonly scale?: 'µs' | 'ms';
  /** A group's parts, each with its own CPU over the same window and units; they sum to this. */
  readonly parts?: readonly CpuPerUnit[];
}

/** One request of a paced run, as `next()` builds it. */
export interface PacedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** An open-loop run at a fixed rate (see paced.ts): the request to send next, built per request. */
export interface PacedSpec {
  readonly label: string;
  /** Origin, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  /** Requests per second, evenly spaced. */
  readonly rate: number;
  /** Measured seconds; the run's `--duration` when unset. */
  readonly durationSeconds?: number;
  next(): PacedRequest;
  /** Each answer, with the request `next()` built for it (the same object) and when it ended (performance.now()). */
  onResponse?(status: number, request: PacedRequest, endedAt: number): void;
  readonly notes?: string;
  /** Whose CPU the measured window charges to each successful response (the server under test). */
  readonly cpu?: CpuProbe;
  /** Awaited after the warm-up, before the measured window opens. */
  beforeWindow?(): Promise<void> | void;
  /** Awaited after the measured requests are answered, before the CPU window closes. */
  afterWindow?(): Promise<void> | void;
}

/** What one load run measured. */
export interface Measurement {
  readonly label: string;
  /** Successful (2xx) responses per second over the measured window. */
  readonly rate: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses of any status. */
  readonly responses: number;
  /** Non-2xx responses, by status code. */
  readonly non2xx: Readonly<Record<string, number>>;
  /** Socket errors and timeouts: requests that got no response at all. */
  readonly socketErrors: number;
  readonly durationSeconds: number;
  readonly connections: number;
  readonly notes?: string;
  /** This row's own target, where it differs from its scenario's (e.g. a latency run at a set rate). */
  readonly ownTarget?: Target;
  /** A reference row (a floor to compare with), judged against no target. */
  readonly reference?: boolean;
  /** CPU time spent per unit of work over the measured window: the headline figure, steadier than rates. */
  readonly cpu?: CpuPerUnit;
  /** Label of the reference row (same run) whose rate this row is a fraction of. */
  readonly floor?: string;
}

/** The real Switchboard server a scenario runs against (one per scenario, fresh data dir). */
export interface GatewayUnderTest {
  /** Origin, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  /** The orchestrator token printed at first start. */
  readonly orchestratorToken: string;
  /** The in-process provider simulator (demo mode), without the `/_sim` suffix. */
  readonly simulatorUrl: string;
  /** The server's process id, for reading its memory. */
  readonly pid: number;
  /** The team token, from GET /admin/api/my-token with the orchestrator token. */
  teamToken(): Promise<string>;
}

/** What the harness hands a scenario. */
export interface BenchContext {
  /** Seconds of measured load per run (`--duration`). */
  readonly durationSeconds: number;
  /** Seconds of unmeasured warm-up before each run (`--warmup`). */
  readonly warmupSeconds: number;
  /** Default concurrent connections (`--connections`). */
  readonly connections: number;
  /** The gate's short run (`npm run bench -- check`): measure only the rows its figures read, at the smallest size that gives them. */
  readonly short: boolean;
  /** Starts the real server on first call (in its own process) and returns it; the harness stops it. One per `adapter` (default: the HTTP_ADAPTER environment variable, else auto); `env` is added to the first start's environment. */
  gateway(options?: { adapter?: 'uws' | 'node'; env?: Readonly<Record<string, string>> }): Promise<GatewayUnderTest>;
  /** Warms up, then runs autocannon against `spec` for the run's duration, with progress on stderr. */
  load(spec: LoadSpec): Promise<Measurement>;
  /** Warms up, then sends `spec.rate` requests per second, evenly spaced, for the run's duration; `connections` is the most in flight at once. */
  paced(spec: PacedSpec): Promise<Measurement>;
  /** Registers clean-up that the harness runs after the scenario, even when it fails. */
  defer(cleanup: () => Promise<unknown> | void): void;
  /** A progress or diagnostic line on stderr. */
  log(message: string): void;
}

/** A benchmark scenario: one module in test/bench/scenarios/, listed in scenarios/index.ts. */
export interface Scenario {
  /** What `npm run bench -- <name>` selects. */
  readonly name: string;
  /** One line for --help and BENCHMARKS.md. */
  readonly description: string;
  readonly target?: Target;
  /** Runs its load through `ctx.load` and returns every measurement it made, one table row each. */
  run(ctx: BenchContext): Promise<Measurement[]>;
}
