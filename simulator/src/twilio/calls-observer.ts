import type { SimulatorState } from '../simulator-state.js';
import type { SimCall, SimCallUpdate } from '../types.js';

/** Told when the Calls resource creates or changes a call, so the simulated phone can act on it. */
export interface CallObserver {
  created(call: SimCall): void;
  updated(call: SimCall, update: SimCallUpdate): void;
}

const observers = new WeakMap<SimulatorState, CallObserver>();

/** Registers the (single) observer of a simulator's calls. */
export function observeCalls(state: SimulatorState, observer: CallObserver): void {
  observers.set(state, observer);
}

export function notifyCallCreated(state: SimulatorState, call: SimCall): void {
  observers.get(state)?.created(call);
}

export function notifyCallUpdated(state: SimulatorState, call: SimCall, update: SimCallUpdate): void {
  observers.get(state)?.updated(call, update);
}
