import type { DeepgramClient } from '@deepgram/sdk';
import { providerError, type DriverLogger, type RecognitionStream, type SpeechRecognition } from '@switchboard/sdk';
import { statusOf } from './client.js';
import { DeepgramRecognitionStream } from './recognition-stream.js';
import { DEFAULT_CHUNK_MS, DEFAULT_ENDPOINTING_MS, DEFAULT_FINALIZE_TIMEOUT_MS, DEFAULT_MODEL, type DeepgramSettings } from './settings.js';

/** Opening a stream that has not connected by then fails with a retryable PROVIDER_ERROR. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Streaming speech-to-text over Deepgram's live `/v1/listen` WebSocket; tracks its streams so `closeAll` can end them. */
export function deepgramRecognition(
  client: DeepgramClient,
  settings: DeepgramSettings,
  logger: DriverLogger,
): SpeechRecognition & { closeAll(): Promise<void> } {
  const streams = new Set<RecognitionStream>();
  return {
    async open({ encoding, sampleRate, language }): Promise<RecognitionStream> {
      const tag = language ?? settings.language;
      const socket = await client.listen.v1.connect({
        model: settings.model ?? DEFAULT_MODEL,
        encoding,
        sample_rate: sampleRate,
        channels: 1,
        interim_results: 'true',
        punctuate: 'true',
        endpointing: settings.endpointingMs ?? DEFAULT_ENDPOINTING_MS,
        ...(tag ? { language: tag } : {}),
        reconnectAttempts: 0,
        connectionTimeoutInSeconds: CONNECT_TIMEOUT_MS / 1000,
      });
      socket.connect();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          socket.waitForOpen(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
          }),
        ]);
      } catch (err) {
        socket.close();
        throw providerError('deepgram', toError(err), statusOf(err));
      } finally {
        clearTimeout(timer);
      }
      const stream = new DeepgramRecognitionStream(socket, {
        finalizeTimeoutMs: settings.finalizeTimeoutMs ?? DEFAULT_FINALIZE_TIMEOUT_MS,
        chunkBytes: Math.max(1, Math.round(((settings.chunkMs ?? DEFAULT_CHUNK_MS) * sampleRate * bytesPerSample(encoding)) / 1000)),
        logger,
        onClosed: () => streams.delete(stream),
      });
      streams.add(stream);
      return stream;
    },
    async closeAll() {
      await Promise.all([...streams].map((s) => s.close()));
    },
  };
}

/** The SDK rejects a failed open with an error event; keep its message. */
function toError(err: unknown): Error {
  if (err instanceof Error) return err;
  const message = (err as { message?: unknown } | null)?.message;
  return new Error(typeof message === 'string' ? message : String(err));
}

/** Bytes per sample of the raw encodings a call sends: one for G.711, two for 16-bit PCM. */
function bytesPerSample(encoding: string): number {
  return encoding === 'mulaw' || encoding === 'alaw' ? 1 : 2;
}
