import type { AgentOperation } from '../actors/operation.js';
import { callOperations } from './call-operations.js';
import { callWebhooks } from './call-webhooks.js';
import { reconcileCallOperation } from './reconcile-call.js';
import type { VoiceContext } from './voice-context.js';

export type { VoiceContext } from './voice-context.js';

/** Voice operations every agent actor answers. */
export function voiceOperations(context: VoiceContext): AgentOperation[] {
  return [...callOperations(context), ...callWebhooks(context), reconcileCallOperation(context)];
}
