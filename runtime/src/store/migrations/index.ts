import type { Migration } from '../migrate.js';
import { initial } from './001-initial.js';
import { messaging } from './002-messaging.js';
import { limits } from './003-limits.js';
import { deadLetterMessage } from './004-dead-letter-message.js';
import { messageCostTrigger } from './005-message-cost-trigger.js';
import { idempotencyClaim } from './006-idempotency-claim.js';
import { partitionFences } from './007-partition-fences.js';
import { inbox } from './008-inbox.js';
import { callLedger } from './009-call-ledger.js';
import { conversations } from './013-conversations.js';
import { callTrace } from './014-call-trace.js';
import { emailThreads } from './015-email-threads.js';
import { inboxAppends } from './016-inbox-appends.js';
import { callRecordings } from './018-call-recordings.js';
import { conversationSummaries } from './019-conversation-summaries.js';
import { tasks } from './010-tasks.js';
import { callbackLog } from './011-callback-log.js';
import { replyTasks } from './012-reply-tasks.js';
import { reconcile } from './017-reconcile.js';
import { messageStatusEntries } from './020-message-status-entries.js';
import { contactPolicy } from './021-contact-policy.js';
import { contactRefusals } from './022-contact-refusals.js';
import { messageTemplates } from './023-message-templates.js';
import { providerRoutes } from './024-provider-routes.js';
import { listUnsubscribe } from './025-list-unsubscribe.js';

/** Every migration, in order. Forward-only: a released migration is never edited, only followed. */
export const MIGRATIONS: readonly Migration[] = [initial, messaging, limits, deadLetterMessage, messageCostTrigger, idempotencyClaim, partitionFences, inbox, callLedger, tasks, callbackLog, replyTasks, conversations, callTrace, emailThreads, inboxAppends, reconcile, callRecordings, conversationSummaries, messageStatusEntries, contactPolicy, contactRefusals, messageTemplates, providerRoutes, listUnsubscribe];
