import { randomUUID } from 'node:crypto';
import { MissingRequiredClientCapabilityError, ProtocolError, ProtocolErrorCode, type CallToolResult, type Server, type StandardSchemaV1 } from '@modelcontextprotocol/server';
import { ErrorCodes } from '@switchboard/sdk';
import {
  callTaskState,
  replyTaskState,
  taskExpired,
  type CallTaskRecord,
  type GatewayPorts,
  type Principal,
  type ReplyTaskRecord,
  type StoredTask,
} from '@switchboard/runtime';
import { errorResult } from '../http/errors.js';
import { grants, scopeFor, type ScopeAction } from '../oauth/scopes.js';
import type { ReplyWaitCap } from '../replies/wait-cap.js';

/** The Tasks extension (SEP-2663) as the 2026-07-28 revision names it. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The tools that place a call, which a task follows: a placed call runs for minutes after the tool answers. */
const CALL_TOOLS: ReadonlySet<string> = new Set(['comms_make_call', 'comms_call_on_behalf']);

/** The tool whose wait becomes a task: a reply may take up to a day. */
const REPLY_TOOL = 'comms_wait_for_reply';

/** The tools whose calls may become tasks. */
export const TASK_TOOLS: ReadonlySet<string> = new Set([...CALL_TOOLS, REPLY_TOOL]);

/** How long a task is answered for after it is made (the extension's `ttlMs`); a reply task's after its deadline. */
export const TASK_TTL_MS = 24 * 3_600_000;

/** How often a client is asked to poll `tasks/get` (the extension's `pollIntervalMs`). */
export const TASK_POLL_INTERVAL_MS = 2000;

/** A reply task's poll interval: its status changes the moment the reply is stored, so a client learns of it within a second. */
export const REPLY_POLL_INTERVAL_MS = 1000;

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

/** What the task side of the server reaches the runtime through. */
export type TaskPorts = Pick<GatewayPorts, 'tasks' | 'calls' | 'agents' | 'replies'>;

/** True when the request's capabilities (its `_meta` envelope, which the SDK lifts out of the params) name the Tasks extension. */
export function declaresTasks(envelope: unknown): boolean {
  const capabilities = (envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES] as { extensions?: Record<string, unknown> } | undefined;
  const setting = capabilities?.extensions?.[TASKS_EXTENSION];
  return typeof setting === 'object' && setting !== null;
}

/**
 * Who owns a task: the token that made it (a client token's agent and which of its tokens, see
 * `Principal.tokenId`), or the team or orchestrator; a task is found for its owner only.
 */
function ownerOf(principal: Principal): string {
  if (principal.kind !== 'client') return principal.kind;
  return principal.tokenId === undefined ? `client:${principal.agentId}` : `client:${principal.agentId}:${principal.tokenId}`;
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

/** What a task's status is derived from at one read, by kind. */
type TaskState = ReturnType<typeof callTaskState> | ReturnType<typeof replyTaskState>;

/**
 * Tool calls answered as tasks for one caller: a placed call (made from the call tool's answer,
 * cancelled by hanging the call up) or a wait for a reply (made from the route's first look, ended by
 * cancelling). Read back from the store at every `tasks/get` (any gateway answers, across restarts).
 */
export class ToolTasks {
  readonly #owner: string;

  constructor(
    private readonly ports: TaskPorts,
    private readonly principal: Principal,
    /** Counts reply tasks still waiting toward the principal's cap of waits. */
    private readonly waitCap: Pick<ReplyWaitCap, 'admitTask'>,
  ) {
    this.#owner = ownerOf(principal);
  }

  /**
   * The task of a call a tool placed: stored before it is answered, so a `tasks/get` right after
   * resolves. A failed tool call has no call to follow and stays a plain result (undefined).
   */
  async start(tool: string, args: Readonly<Record<string, unknown>>, result: CallToolResult): Promise<Record<string, unknown> | undefined> {
    if (tool === REPLY_TOOL) return this.#startReply(args, result);
    if (!CALL_TOOLS.has(tool)) return undefined;
    const callSid = (result.structuredContent as { callSid?: unknown } | undefined)?.callSid;
    if (result.isError || typeof callSid !== 'string') return undefined;
    const call = await this.ports.calls.get(callSid);
    if (!call) return undefined;
    const task: StoredTask = { taskId: randomUUID(), owner: this.#owner, agentId: call.agentId, kind: 'call', callId: call.callId, createdAt: new Date().toISOString(), ttlMs: TASK_TTL_MS, cancelledAt: null };
    await this.ports.tasks.create(task);
    return { resultType: 'task', ...envelope(task, { status: 'working', statusMessage: `The call is ${call.status}.`, lastUpdatedAt: task.createdAt }) };
  }

  /**
   * The task of a wait for a reply, from the route's first look (which checked the caller's rights,
   * the conversation and the cursor, and fixed where the wait starts); a refused look stays a plain result,
   * and a principal at its cap of waits gets the route's error result (RATE_LIMITED; the message says when to retry).
   */
  async #startReply(args: Readonly<Record<string, unknown>>, result: CallToolResult): Promise<Record<string, unknown> | undefined> {
    const look = result.structuredContent as { agentId?: unknown; conversationId?: unknown; after?: unknown } | undefined;
    if (result.isError || typeof look?.agentId !== 'string' || typeof look.conversationId !== 'string' || typeof look.after !== 'number') return undefined;
    try {
      await this.waitCap.admitTask(this.principal, look.agentId);
    } catch (err) {
      const { body } = errorResult(err);
      return { content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body, isError: true };
    }
    const createdAt = new Date();
    const timeoutMs = Number(args.timeoutSeconds) * 1000;
    const task: ReplyTaskRecord = {
      taskId: randomUUID(),
      owner: this.#owner,
      agentId: look.agentId,
      kind: 'reply',
      conversationId: look.conversationId,
      afterCursor: look.after,
      deadlineAt: new Date(createdAt.getTime() + timeoutMs).toISOString(),
      createdAt: createdAt.toISOString(),
      ttlMs: timeoutMs + TASK_TTL_MS,
      cancelledAt: null,
    };
    await this.ports.tasks.create(task);
    return { resultType: 'task', ...envelope(task, { status: 'working', statusMessage: 'Waiting for a reply.', lastUpdatedAt: task.createdAt }) };
  }

  /** `tasks/get`: the task with its outcome inlined once the call is over or the wait has ended. */
  async get(taskId: string): Promise<Record<string, unknown>> {
    const task = await this.#find(taskId);
    this.#require('read', 'tasks/get');
    return detailed(task, await this.#state(task));
  }

  /** `tasks/cancel`: hangs a call up (a call already over keeps its outcome), ends a wait; the ack is the same. */
  async cancel(taskId: string): Promise<Record<string, never>> {
    const task = await this.#find(taskId);
    this.#require(task.kind === 'call' ? 'call' : 'read', 'tasks/cancel');
    if (task.cancelledAt !== null || (await this.#state(task)).status !== 'working') return {};
    if (task.kind === 'reply') {
      await this.ports.tasks.cancel(task.taskId, new Date().toISOString());
      return {};
    }
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
    this.#require('read', 'tasks/update');
    return {};
  }

  #state(task: StoredTask): Promise<TaskState> {
    return task.kind === 'call' ? this.#callState(task) : this.#replyState(task);
  }

  async #callState(task: CallTaskRecord): Promise<TaskState> {
    return callTaskState(task, await this.ports.calls.get(task.callId));
  }

  async #replyState(task: ReplyTaskRecord): Promise<TaskState> {
    return replyTaskState(task, await this.ports.replies.check(task.agentId, task.conversationId, task.afterCursor));
  }

  /**
   * Refuses an operation whose scope the caller's access token lacks (`read` to look at a task, `call`
   * to hang a call task up, as on REST), after the task was found as its own; static tokens carry no scopes.
   */
  #require(action: ScopeAction, method: string): void {
    const { principal } = this;
    if (principal.kind !== 'client' || principal.scopes === undefined) return;
    const needed = scopeFor(action);
    if (!grants(principal.scopes, needed)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `The access token lacks the scope ${needed} for ${method} on this task; ask the authorization server for it.`);
    }
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
export function serveTasks(server: Server, tasks: ToolTasks): void {
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
function envelope(task: StoredTask, state: Pick<TaskState, 'status' | 'statusMessage' | 'lastUpdatedAt'>): Record<string, unknown> {
  return {
    taskId: task.taskId,
    status: state.status,
    statusMessage: state.statusMessage,
    createdAt: task.createdAt,
    lastUpdatedAt: state.lastUpdatedAt,
    ttlMs: task.ttlMs,
    pollIntervalMs: task.kind === 'reply' ? REPLY_POLL_INTERVAL_MS : TASK_POLL_INTERVAL_MS,
  };
}

/** The extension's `DetailedTask`: a completed task inlines the tool's result, a failed one its JSON-RPC error. */
function detailed(task: StoredTask, state: TaskState): Record<string, unknown> {
  const base = envelope(task, state);
  if (state.status === 'completed') {
    // A call not answered is a tool error; a wait that timed out is not (it answers a cursor to wait again).
    const isError = 'answered' in state.outcome && !state.outcome.answered;
    return { ...base, result: { content: [{ type: 'text', text: JSON.stringify(state.outcome) }], structuredContent: state.outcome, ...(isError ? { isError: true } : {}) } };
  }
  if (state.status === 'failed') return { ...base, error: { code: ProtocolErrorCode.InternalError, message: state.statusMessage } };
  return base;
}
