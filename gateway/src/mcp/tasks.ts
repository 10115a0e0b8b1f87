import { randomUUID } from 'node:crypto';
import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, type CallToolResult, type Server, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { ErrorCodes } from '@switchboard/sdk';
import { callTaskState, taskExpired, type CallTaskState, type GatewayPorts, type Principal, type StoredTask } from '@switchboard/runtime';

/** The Tasks extension (SEP-2663) as the 2026-07-28 revision names it. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The tools whose calls may become tasks: a placed call runs for minutes after the tool answers. */
export const TASK_TOOLS: ReadonlySet<string> = new Set(['comms_make_call', 'comms_call_on_behalf']);

/** How long a call task is answered for after it is made (the extension's `ttlMs`). */
export const TASK_TTL_MS = 24 * 3_600_000;

/** How often a client is asked to poll `tasks/get` (the extension's `pollIntervalMs`). */
export const TASK_POLL_INTERVAL_MS = 2000;

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** What the task side of the server reaches the runtime through. */
export type TaskPorts = Pick<GatewayPorts, 'tasks' | 'calls' | 'agents'>;

/** True when the request's capabilities (its `_meta` envelope, which the SDK lifts out of the params) name the Tasks extension. */
export function declaresTasks(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined;
  const setting = capabilities?.extensions?.[TASKS_EXTENSION];
  return typeof setting === 'object' && setting !== null;
}

/** Who owns a task: the principal that made it; a task is found for its owner only. */
function ownerOf(principal: Principal): string {
  return principal.kind === 'client' ? `client:${principal.agentId}` : principal.kind;
}

/** `tasks/get`, `tasks/update` and `tasks/cancel` take the task's id (and, for update, the input responses). */
const TaskIdParams: StandardSchemaV1<unknown, { taskId: string }> = {
  '~standard': {
    version: 1,
    vendor: 'switchboard',
    validate(value) {
      const taskId = (value as { taskId?: unknown } | null)?.taskId;
      return typeof taskId === 'string' && taskId !== '' ? { value: { taskId } } : { issues: [{ message: 'taskId must be a non-empty string.' }] };
    },
  },
};

/**
 * Calls placed as tasks for one caller: made from a call tool's answer, read back from the store
 * (any gateway answers, across restarts), cancelled by hanging the call up.
 */
export class CallTasks {
  readonly #owner: string;

  constructor(
    private readonly ports: TaskPorts,
    principal: Principal,
  ) {
    this.#owner = ownerOf(principal);
  }

  /**
   * The task of a call a tool placed: stored before it is answered, so a `tasks/get` right after
   * resolves. A failed tool call has no call to follow and stays a plain result (undefined).
   */
  async start(result: CallToolResult): Promise<Record<string, unknown> | undefined> {
    const callSid = (result.structuredContent as { callSid?: unknown } | undefined)?.callSid;
    if (result.isError || typeof callSid !== 'string') return undefined;
    const call = await this.ports.calls.get(callSid);
    if (!call) return undefined;
    const task: StoredTask = { taskId: randomUUID(), owner: this.#owner, agentId: call.agentId, kind: 'call', callId: call.callId, createdAt: new Date().toISOString(), ttlMs: TASK_TTL_MS, cancelledAt: null };
    await this.ports.tasks.create(task);
    return { resultType: 'task', ...envelope(task, { status: 'working', statusMessage: `The call is ${call.status}.`, lastUpdatedAt: task.createdAt }) };
  }

  /** `tasks/get`: the task with its outcome inlined once the call is over. */
  async get(taskId: string): Promise<Record<string, unknown>> {
    const task = await this.#find(taskId);
    const state = callTaskState(task, await this.ports.calls.get(task.callId));
    return detailed(task, state);
  }

  /** `tasks/cancel`: hangs the call up; a call already over keeps its outcome (the ack is the same). */
  async cancel(taskId: string): Promise<Record<string, never>> {
    const task = await this.#find(taskId);
    if (task.cancelledAt !== null || callTaskState(task, await this.ports.calls.get(task.callId)).status !== 'working') return {};
    try {
      await this.ports.agents.call('hangUpCall', task.agentId, { callSid: task.callId });
    } catch (err) {
      // The call ended meanwhile: the task keeps the call's own outcome.
      if ((err as { code?: unknown }).code === ErrorCodes.CONFLICT) return {};
      throw new ProtocolError(ProtocolErrorCode.InternalError, `Could not hang the call up: ${(err as Error).message}; try again.`);
    }
    await this.ports.tasks.cancel(task.taskId, new Date().toISOString());
    return {};
  }

  /** `tasks/update`: a call task never asks for input, so there is nothing outstanding to answer; acknowledged. */
  async update(taskId: string): Promise<Record<string, never>> {
    await this.#find(taskId);
    return {};
  }

  async #find(taskId: string): Promise<StoredTask> {
    const task = await this.ports.tasks.find(taskId, this.#owner);
    if (!task) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found');
    if (taskExpired(task)) throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task has expired');
    return task;
  }
}

/**
 * Serves the extension's methods on a 2026-07-28 server. They are registered with an explicit
 * schema, which is what lets the SDK's era gate pass `tasks/get` and `tasks/cancel` (core methods of
 * the 2025 era only); a request whose capabilities do not name the extension is refused with -32021.
 */
export function serveTasks(server: Server, tasks: CallTasks): void {
  const gated =
    <R>(work: (taskId: string) => Promise<R>) =>
    async (params: { taskId: string }, ctx: { mcpReq: { envelope?: unknown } }): Promise<R> => {
      if (!declaresTasks(ctx.mcpReq.envelope)) {
        throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } }, 'Missing required client capability: declare the io.modelcontextprotocol/tasks extension in the request capabilities.');
      }
      return work(params.taskId);
    };
  server.setRequestHandler('tasks/get', { params: TaskIdParams }, gated((taskId) => tasks.get(taskId)));
  server.setRequestHandler('tasks/update', { params: TaskIdParams }, gated((taskId) => tasks.update(taskId)));
  server.setRequestHandler('tasks/cancel', { params: TaskIdParams }, gated((taskId) => tasks.cancel(taskId)));
}

/** The extension's `Task`: the fields every task shape carries. */
function envelope(task: StoredTask, state: Pick<CallTaskState, 'status' | 'statusMessage' | 'lastUpdatedAt'>): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: state.status,
    statusMessage: state.statusMessage,
    createdAt: task.createdAt,
    lastUpdatedAt: state.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  };
}

/** The extension's `DetailedTask`: a completed task inlines the tool's result, a failed one its JSON-RPC error. */
function detailed(task: StoredTask, state: CallTaskState): Record<string, unknown> {
  const base = envelope(task, state);
  if (state.status === 'completed') {
    return { ...base, result: { content: [{ type: 'text', text: JSON.stringify(state.outcome) }], structuredContent: state.outcome, ...(state.outcome.answered ? {} : { isError: true }) } };
  }
  if (state.status === 'failed') return { ...base, error: { code: ProtocolErrorCode.InternalError, message: state.statusMessage } };
  return base;
}
