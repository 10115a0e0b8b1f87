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
}

/** A process whose CPU a load run reads over its measured window, and what one unit of its work is called. */
export interface CpuProbe {
  /** The process (the server under test, in a child process of its own): its counters cover all its threads. */
  readonly pid: number;
  /** One unit of work, singular: "request", "webhook", "send". */
  readonly unit: string;
  /** Whose CPU it is, for the notes; default "server". */
  readonly whose?: string;
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
}

/** An open-loop run at a fixed rate (see paced.ts): the request to send next, built per request. */
export interface PacedSpec {
  readonly label: string;
  /** Origin, e.g. http://127.0.0.1:41234. */
  readonly url: string;
  /** Requests per second, evenly spaced. */
  readonly rate: number;
  next(): { method: string; path: string; headers: Record<string, string>; body?: string };
  onResponse?(status: number): void;
  readonly notes?: string;
  /** Whose CPU the measured window charges to each successful response (the server under test). */
  readonly cpu?: CpuProbe;
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
  /** Starts the real server on first call (in its own process) and returns it; the harness stops it. One per `adapter` (HTTP_ADAPTER; default auto). */
  gateway(options?: { adapter?: 'uws' | 'node' }): Promise<GatewayUnderTest>;
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
