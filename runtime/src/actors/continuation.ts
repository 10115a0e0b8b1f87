/**
 * Work an operation hands back to run after its mailbox turn: the state-changing part runs inside
 * the mailbox, slow provider I/O runs outside it so one agent's sends do not queue behind each other.
 */
export class Continuation<T = unknown> {
  constructor(readonly run: () => Promise<T>) {}
}
