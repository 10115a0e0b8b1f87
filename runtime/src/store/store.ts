import { ContentRetentionRepository } from './repositories/content-retention.js';
import { join } from 'node:path';
import type { Database } from './database.js';
import { migrate } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { AgentRepository } from './repositories/agents.js';
import { AgentContentRepository } from './repositories/agent-content.js';
import { CallRepository } from './repositories/calls.js';
import { CallbackRepository } from './repositories/callbacks.js';
import { LimitsRepository } from './repositories/limits.js';
import { DeadLetterRepository } from './repositories/dead-letters.js';
import { MessageRepository } from './repositories/messages.js';
import { OptOutRepository } from './repositories/opt-outs.js';
import { PersonContentRepository } from './repositories/person-content.js';
import { DoNotContactRepository } from './repositories/do-not-contact.js';
import { ConsentRepository } from './repositories/consents.js';
import { ContactRefusalRepository } from './repositories/contact-refusals.js';
import { UsageRepository } from './repositories/usage.js';
import { IdempotencyRepository } from './repositories/idempotency.js';
import { ConversationRepository } from './repositories/conversations.js';
import { InboxRepository } from './repositories/inbox.js';
import { PoolRepository } from './repositories/pools.js';
import { TaskRepository } from './repositories/tasks.js';
import { TenureRepository } from './repositories/tenures.js';
import { SettingsRepository } from './repositories/settings.js';
import { TokenRepository } from './repositories/tokens.js';
import { openPostgres } from './postgres/index.js';
import { openSqlite } from './sqlite/index.js';

/** The store: one database and a repository per aggregate. */
export class Store {
  readonly agents: AgentRepository;
  readonly pools: PoolRepository;
  readonly tokens: TokenRepository;
  readonly settings: SettingsRepository;
  readonly idempotency: IdempotencyRepository;
  readonly messages: MessageRepository;
  readonly deadLetters: DeadLetterRepository;
  readonly usage: UsageRepository;
  readonly optOuts: OptOutRepository;
  readonly doNotContact: DoNotContactRepository;
  readonly consents: ConsentRepository;
  /** Contacts the policy refused, for the operator. */
  readonly contactRefusals: ContactRefusalRepository;
  readonly calls: CallRepository;
  readonly limits: LimitsRepository;
  readonly tenures: TenureRepository;
  readonly inbox: InboxRepository;
  readonly conversations: ConversationRepository;
  readonly tasks: TaskRepository;
  readonly callbacks: CallbackRepository;
  /** Messages and transcripts past their retention. */
  readonly contentRetention: ContentRetentionRepository;
  /** An agent's content as one thing to erase (deprovisioning). */
  readonly agentContent = new AgentContentRepository();
  /** A person's content as one thing to erase (an erasure request). */
  readonly personContent = new PersonContentRepository();

  constructor(readonly db: Database) {
    this.agents = new AgentRepository(db);
    this.pools = new PoolRepository(db);
    this.tokens = new TokenRepository(db);
    this.settings = new SettingsRepository(db);
    this.idempotency = new IdempotencyRepository(db);
    this.messages = new MessageRepository(db);
    this.deadLetters = new DeadLetterRepository(db);
    this.usage = new UsageRepository(db);
    this.optOuts = new OptOutRepository(db);
    this.doNotContact = new DoNotContactRepository(db);
    this.consents = new ConsentRepository(db);
    this.contactRefusals = new ContactRefusalRepository(db);
    this.calls = new CallRepository(db);
    this.limits = new LimitsRepository(db);
    this.tenures = new TenureRepository(db);
    this.inbox = new InboxRepository(db);
    this.conversations = new ConversationRepository(db);
    this.tasks = new TaskRepository(db);
    this.callbacks = new CallbackRepository(db);
    this.contentRetention = new ContentRetentionRepository(db);
  }

  close(): Promise<void> {
    return this.db.close();
  }
}

export interface OpenStoreOptions {
  dataDir: string;
  synchronous?: 'FULL' | 'NORMAL';
  /** `postgres://…`: the shared PostgreSQL store; empty or absent: SQLite under `dataDir`. */
  databaseUrl?: string;
}

/**
 * Opens the store and migrates it: PostgreSQL when a `postgres://` URL is given (cluster mode),
 * else the embedded SQLite file under the data dir (created when needed).
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const db = options.databaseUrl
    ? await openPostgres({ connectionString: options.databaseUrl })
    : await openSqlite({ filename: join(options.dataDir, 'switchboard.db'), synchronous: options.synchronous ?? 'FULL' });
  try {
    await migrate(db, MIGRATIONS);
  } catch (err) {
    await db.close();
    throw err;
  }
  return new Store(db);
}
