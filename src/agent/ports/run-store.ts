import type { EventsPort } from './events.ts';
import type { HumanInputPort } from './human-input.ts';
import type { LeasesPort } from './leases.ts';
import type { OpeningsPort } from './openings.ts';
import type { OutboxPort } from './outbox.ts';
import type { PlansPort } from './plans.ts';
import type { RunsPort } from './runs.ts';
import type { StepsPort } from './steps.ts';
import type { SummaryPort } from './summary.ts';
import type { UsagePort } from './usage.ts';

// The record types live next to their role's port; they are re-exported here so a module that uses
// the whole store imports from one place.
export type * from './events.ts';
export type * from './human-input.ts';
export type * from './leases.ts';
export type * from './openings.ts';
export type * from './outbox.ts';
export type * from './plans.ts';
export type * from './runs.ts';
export type * from './steps.ts';
export type * from './summary.ts';
export type * from './usage.ts';
export { FINAL_RUN_STATUSES } from './runs.ts';

/**
 * Everything the agent remembers, one port per role (each file in this folder). Each method is one
 * durable fact, committed before it returns, so the executor can store a transition before the action
 * that depends on it. A module that needs one role takes that port, not the whole store.
 */
export interface RunStore extends RunsPort, OutboxPort, LeasesPort, PlansPort, StepsPort, EventsPort, HumanInputPort, UsagePort, SummaryPort, OpeningsPort {}
