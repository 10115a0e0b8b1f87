import { rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir } from '../data-dir.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/store.js';

const DAY_MS = 86_400_000;
/** Recordings removed per query of a sweep. */
const SWEEP_BATCH = 200;
/** A recording's file: the call's session id (an unguessable capability, never served by name). */
const FILE = /^ses_[A-Za-z0-9_-]+\.wav$/;

/**
 * Call recordings as WAV files under one directory (RECORDINGS_DIR: DATA_DIR/recordings by default; in
 * a cluster a directory every gateway and node shares), named on the call's row once written. Whoever
 * holds the audio writes it: the process holding a stream-mode call's media, or the node taking a relay
 * call's provider recording. Served only through the calls API; removed after the retention.
 */
export class CallRecordings {
  constructor(
    private readonly store: Store,
    readonly dir: string,
    /** RECORDING_RETENTION_DAYS. */
    private readonly retentionDays: number,
    private readonly logger?: Logger,
  ) {}

  /** Writes the call's recording (whole, then renamed into place; given at once or a piece at a time) and names it on the call's row. */
  async save(sessionId: string, wav: Buffer | Iterable<Buffer>, seconds: number): Promise<void> {
    const file = `${sessionId}.wav`;
    if (!FILE.test(file)) throw new Error(`not a session id: ${sessionId}`);
    makePrivateDir(this.dir);
    const path = join(this.dir, file);
    await writeFile(`${path}.part`, wav, { mode: 0o600 });
    await rename(`${path}.part`, path);
    const recordedAt = new Date().toISOString();
    if (!(await this.store.calls.saveRecording(sessionId, { file, seconds: Math.round(seconds * 1000) / 1000, recordedAt }))) {
      // The call's row is gone (its agent was deprovisioned meanwhile): the file has nobody to be served to.
      await unlink(path).catch(() => undefined);
    }
  }

  /** The path of a stored recording's file, or undefined for a name this store does not make. */
  pathOf(file: string): string | undefined {
    return FILE.test(file) ? join(this.dir, file) : undefined;
  }

  /** Removes recording files whose rows are gone (a deprovisioned agent's); one that cannot be removed is logged, as its row is gone already. */
  async remove(files: readonly string[]): Promise<void> {
    for (const file of files) {
      const path = this.pathOf(file);
      if (!path) continue;
      await unlink(path).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') this.logger?.warn({ err, file }, 'a deprovisioned agent\'s call recording could not be removed');
      });
    }
  }

  /** Removes recordings stored more than the retention ago; returns how many. */
  async sweep(now = Date.now()): Promise<number> {
    const before = new Date(now - this.retentionDays * DAY_MS).toISOString();
    let removed = 0;
    for (;;) {
      const batch = await this.store.calls.recordingsBefore(before, SWEEP_BATCH);
      for (const { sessionId, file } of batch) {
        const path = this.pathOf(file);
        if (path) await unlink(path).catch((err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? undefined : Promise.reject(err)));
        await this.store.calls.forgetRecording(sessionId);
        removed++;
      }
      if (batch.length < SWEEP_BATCH) break;
    }
    if (removed > 0) this.logger?.info({ removed }, 'call recordings past their retention removed');
    return removed;
  }
}
