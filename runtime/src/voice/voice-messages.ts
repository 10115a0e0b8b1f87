import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { wavFile } from '@switchboard/sdk';
import { makePrivateDir } from '../data-dir.js';

/** A stored voice message. */
export interface StoredVoiceMessage {
  readonly name: string;
  /** The unguessable public URL the provider fetches. */
  readonly url: string;
  readonly durationSeconds: number;
}

const NAME = /^vm_[A-Za-z0-9_-]{22}\.wav$/;

/** Voice messages as WAV files under the data dir, served at unguessable public URLs. */
export class VoiceMessageStore {
  readonly dir: string;

  constructor(
    dataDir: string,
    private readonly publicBaseUrl: () => string,
  ) {
    this.dir = join(dataDir, 'voice-messages');
  }

  /** Writes 16-bit mono PCM as a WAV file; the duration is the real one, from the samples. */
  async save(pcm: Buffer, sampleRate: number): Promise<StoredVoiceMessage> {
    makePrivateDir(this.dir);
    const name = `vm_${randomBytes(16).toString('base64url')}.wav`;
    writeFileSync(join(this.dir, name), wavFile(pcm, sampleRate), { mode: 0o600 });
    const durationSeconds = Math.round((pcm.length / 2 / sampleRate) * 1000) / 1000;
    return { name, url: `${this.publicBaseUrl()}/media/voice-messages/${name}`, durationSeconds };
  }

  /** The file path for a public name, or undefined when the name is not one this store makes. */
  pathOf(name: string): string | undefined {
    return NAME.test(name) ? join(this.dir, name) : undefined;
  }
}
