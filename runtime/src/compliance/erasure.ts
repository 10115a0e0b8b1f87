import { ErrorCodes, SwitchboardError } from '@switchboard/sdk';
import { newId } from '../ids.js';
import { erasedAddress } from '../store/repositories/do-not-contact.js';
import type { ErasedCounts } from '../store/repositories/person-content.js';
import type { Store } from '../store/store.js';
import { contactAddress } from './contact-policy.js';

/** What an erasure did: it names the person only by the digest the do-not-contact list keeps. */
export interface ErasureReceipt {
  readonly erasureId: string;
  /** `erased:<sha256 of the address>`. */
  readonly person: string;
  readonly erasedAt: string;
  readonly erased: ErasedCounts & { readonly recordings: number };
  /** Do-not-contact entries kept under the digest, so the person is still not contacted. */
  readonly keptOnDoNotContact: number;
}

/** Where recording files are removed once the rows naming them are gone (the voice domain's CallRecordings). */
export interface RecordingFiles {
  remove(files: readonly string[]): Promise<void>;
}

/** Removes a person everywhere the store and the recordings directory hold them, in one transaction, with a receipt. */
export class PersonErasure {
  constructor(
    private readonly store: Store,
    private readonly recordings: RecordingFiles,
  ) {}

  async erase(raw: string): Promise<ErasureReceipt> {
    const address = contactAddress(raw);
    if (!address) throw new SwitchboardError(ErrorCodes.VALIDATION_FAILED, 'Name the person by an E.164 number, an email address or a LINE user id.');
    const { counts, recordings, kept } = await this.store.db.transaction(async (tx) => {
      const content = await this.store.personContent.erase(tx, address);
      return { ...content, kept: await this.store.doNotContact.pseudonymise(tx, address) };
    });
    await this.recordings.remove(recordings);
    return {
      erasureId: newId('era'),
      person: erasedAddress(address),
      erasedAt: new Date().toISOString(),
      erased: { ...counts, recordings: recordings.length },
      keptOnDoNotContact: kept,
    };
  }
}
