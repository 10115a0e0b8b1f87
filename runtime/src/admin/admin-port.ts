import type { Channel, Driver } from '@switchboard/sdk';
import type { ErasureReceipt, PersonErasure } from '../compliance/erasure.js';
import { agentView } from '../agents/view.js';
import type { AgentView } from '../protocol/operations.js';
import type { Markup } from '../billing/markup.js';
import type { UsageReports } from '../billing/reports.js';
import type { DriverSet } from '../drivers/registry.js';
import type { RuntimeEvents } from '../events.js';
import type { AdminPort, MetricsPort } from '../ports.js';
import type { Store } from '../store/store.js';
import { OperatorReads } from './operator-reads.js';

/** The operator's reads and writes besides agent operations, over the store (methods are bound: routes may pass them on alone). */
export class StoreAdminPort implements AdminPort {
  readonly reads: OperatorReads;
  readonly pools: Store['pools'];
  readonly contactList: Store['doNotContact'];
  readonly refusals: Store['contactRefusals'];

  constructor(
    private readonly store: Store,
    readonly reports: UsageReports,
    private readonly markup: Markup,
    private readonly loaded: DriverSet,
    private readonly erasure: PersonErasure,
  ) {
    this.reads = new OperatorReads(store);
    this.pools = store.pools;
    this.contactList = store.doNotContact;
    this.refusals = store.contactRefusals;
  }

  readonly agents = async (): Promise<AgentView[]> => {
    return (await this.store.agents.list()).map(agentView);
  };

  readonly agent = async (agentId: string): Promise<AgentView | undefined> => {
    const record = await this.store.agents.get(agentId);
    return record && agentView(record);
  };

  readonly markupPercent = (): Promise<number> => {
    return this.markup.percent();
  };

  readonly setMarkupPercent = (percent: number): Promise<void> => {
    return this.markup.setPercent(percent);
  };

  readonly drivers = (): readonly Driver[] => {
    return this.loaded.all;
  };

  readonly providers = (channel: Channel): readonly string[] => {
    return this.loaded.ordered(channel).map((d) => d.manifest.provider);
  };

  readonly erase = (address: string): Promise<ErasureReceipt> => {
    return this.erasure.erase(address);
  };
}

/** What the gateway's metrics follow: this process's events and the store's pending dead letters. */
export class StoreMetricsPort implements MetricsPort {
  constructor(
    readonly events: RuntimeEvents,
    private readonly store: Store,
  ) {}

  readonly pendingDeadLetters = (): Promise<number> => {
    return this.store.deadLetters.countPending();
  };

  readonly callbackEndpoints = (): Promise<{ failing: number; disabled: number }> => {
    return this.store.callbacks.countEndpoints();
  };
}
