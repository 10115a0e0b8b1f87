import { ErrorCodes } from '@switchboard/sdk';
import type { Principal } from '@switchboard/runtime';
import { fileByRange } from '../http/byte-ranges.js';
import { fail } from '../http/errors.js';
import { json, type RouteContext, type RouteDefinition } from '../http/types.js';
import { CallId, CallListQuery, CallListResponse, CallQuery, CallResponse } from '../schemas/calls.js';
import { ErrorBody, errorResponses } from '../schemas/common.js';
import { resolveAgentId } from './agent-access.js';
import type { RouteDeps } from './deps.js';

const CALL_ID = new RegExp(CallId.pattern as string);

/** The agent whose calls a request sees: a client's own; for team and orchestrator the one named, or all (undefined). */
function callScope(principal: Principal, named: string | undefined): string | undefined {
  return named === undefined && principal.kind !== 'client' ? undefined : resolveAgentId(principal, named);
}

/** A page of the call log, of one agent or (undefined) of all; the admin API's calls list reads it the same way. */
export async function listCalls(ports: RouteDeps['ports'], agentId: string | undefined, filter: Omit<CallListQuery, 'agentId'>) {
  if (filter.since && filter.until && Date.parse(filter.since) >= Date.parse(filter.until)) fail(ErrorCodes.VALIDATION_FAILED, 'since must be before until.');
  const iso = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());
  return ports.calls.list({
    ...filter,
    ...(agentId !== undefined ? { agentId } : {}),
    ...(filter.since ? { since: iso(filter.since) } : {}),
    ...(filter.until ? { until: iso(filter.until) } : {}),
  });
}

/** One call with its ledger and transcript, when it is `agentId`'s (or any agent's: undefined); else NOT_FOUND. */
export async function findCall(deps: RouteDeps, callId: string, agentId: string | undefined) {
  checkCallId(callId);
  const call = await deps.ports.calls.get(callId);
  // Another agent's call is not found, as an unknown one: a client learns nothing of other agents' calls.
  if (!call || (agentId !== undefined && call.agentId !== agentId)) fail(ErrorCodes.NOT_FOUND, `No call ${callId} for this agent.`);
  return withRecordingLink(deps, call);
}

function checkCallId(callId: string): void {
  if (!CALL_ID.test(callId)) fail(ErrorCodes.VALIDATION_FAILED, 'callId must be a callSid or a sessionId: letters, digits, _, : and - only.');
}

/** A call as the API shows it: its recording, when kept, with the link it is served at. */
export function withRecordingLink<C extends { callSid: string; recording: { durationSeconds: number; recordedAt: string } | null }>(deps: RouteDeps, call: C) {
  const url = `${deps.publicBaseUrl}/api/v1/calls/${encodeURIComponent(call.callSid)}/recording`;
  return { ...call, recording: call.recording && { url, ...call.recording } };
}

/**
 * A call's recording as WAV, when it is `agentId`'s (or any agent's: undefined) and kept, whole or the
 * one byte range `range` asks for (a player seeking); else NOT_FOUND, as for an unknown call.
 */
export async function recordingAudio(deps: RouteDeps, callId: string, agentId: string | undefined, range: string | undefined) {
  checkCallId(callId);
  const recording = await deps.ports.calls.recording(callId);
  if (!recording || (agentId !== undefined && recording.agentId !== agentId)) fail(ErrorCodes.NOT_FOUND, `No call ${callId} for this agent.`);
  const path = recording.file === null ? undefined : deps.ports.voice.recordingPath(recording.file);
  const audio = path ? await fileByRange(path, range, { 'content-type': 'audio/wav', 'cache-control': 'private, no-store' }) : undefined;
  if (!audio) fail(ErrorCodes.NOT_FOUND, `Call ${callId} has no recording: it was not recorded, is not stored yet, or is past its retention.`);
  return audio;
}

/** The documented answers of a recording route (whole, one range, a range past the end). */
export const RECORDING_RESPONSES = {
  200: { description: 'WAV audio, the whole file (Accept-Ranges: bytes).', contentType: 'audio/wav' },
  206: {
    description: 'The one byte range a `Range: bytes=a-b` header asked for, with Content-Range (a suffix `bytes=-n` longer than the file is the whole file); several ranges get the whole file (200).',
    contentType: 'audio/wav',
  },
  416: { description: 'The range starts past the end of the file (BAD_REQUEST, a JSON error body); Content-Range names the size (`bytes */size`).', schema: ErrorBody },
} as const;

/** The calls API: the call log with each call's latency ledger and transcript. */
export function callRoutes(deps: RouteDeps): RouteDefinition[] {
  const { ports } = deps;
  const common = { tag: 'Voice', auth: 'token' as const, scope: 'read' as const };
  return [
    {
      ...common,
      method: 'GET',
      path: '/api/v1/calls',
      operationId: 'listCalls',
      summary: 'Calls newest first, with status, parties, timing, cost and summary; filter by status, direction and time, page with cursor.',
      query: CallListQuery,
      responses: { 200: { description: 'A page of calls.', schema: CallListResponse }, ...errorResponses(400, 401, 403, 429) },
      async handler({ query, principal }: RouteContext<unknown, CallListQuery>) {
        const { agentId: named, ...filter } = query;
        const page = await listCalls(ports, callScope(principal, named), filter);
        return json(200, { ...page, calls: page.calls.map((call) => withRecordingLink(deps, call)) }, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/api/v1/calls/:callId',
      operationId: 'getCall',
      summary: "One call: status, parties, timing, cost, its summary, its per-turn latency ledger and its transcript.",
      query: CallQuery,
      responses: { 200: { description: 'The call.', schema: CallResponse }, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ params, query, principal }: RouteContext<unknown, CallQuery>) {
        const call = await findCall(deps, params.callId ?? '', callScope(principal, query.agentId));
        return json(200, call, { 'cache-control': 'no-store' });
      },
    },
    {
      ...common,
      method: 'GET',
      path: '/api/v1/calls/:callId/recording',
      operationId: 'getCallRecording',
      summary: "The call's recording: a WAV file, both legs (stream mode: the caller left, the agent right). Only the agent that owns the call, and the operator, may fetch it.",
      responses: { ...RECORDING_RESPONSES, ...errorResponses(400, 401, 403, 404, 429) },
      async handler({ params, principal, request }: RouteContext) {
        // A team token reads the call log, but recordings are the owning agent's and the operator's only.
        if (principal.kind === 'team') fail(ErrorCodes.FORBIDDEN, "A call's recording is served to the agent that owns the call and to the operator only.");
        return recordingAudio(deps, params.callId ?? '', principal.kind === 'client' ? principal.agentId : undefined, request.headers.range);
      },
    },
  ];
}
