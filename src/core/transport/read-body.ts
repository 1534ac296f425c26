/**
 * Reading an answer's body within a byte limit, as its chunks arrive: decoded as text for an answer
 * the caller uses, kept as bytes for an error, which ky decodes by the charset it names. Loaded with
 * the send path (http-send.ts).
 *
 * @module
 */
import { ProtoHintScan } from '../validation/proto-keys.ts';
import { requestIdOf } from './request-id.ts';
import { BrokenAnswerError } from './retry.ts';

/** An answer's text, and whether its reader found that it can spell no `__proto__` key. */
export interface DecodedBody {
  readonly text: string;
  readonly protoFree: boolean;
}

/** Takes a body's chunks as they arrive. */
export interface ChunkCollector {
  add(chunk: Uint8Array): void;
}

/**
 * Reads the whole body into `collector`, counting bytes, and returns how many: past `limit` it
 * stops reading and returns undefined, so a hostile 50 MB answer costs at most `limit` bytes of memory. A declared Content-Length
 * over the limit stops it before reading at all. A body that breaks off is a {@link BrokenAnswerError}
 * (retried as a connection that broke); an abort (ky's timeout, the caller's `signal`) stays one.
 */
export async function readChunks(
  response: Response,
  limit: number,
  collector: ChunkCollector,
  signal: AbortSignal,
): Promise<number | undefined> {
  if (Number(response.headers.get('content-length')) > limit) {
    response.body?.cancel().catch(() => {});
    return undefined;
  }
  if (!response.body) return 0;
  const reader = response.body.getReader();
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return size;
      size += value.byteLength;
      if (size > limit) {
        reader.cancel().catch(() => {});
        return undefined;
      }
      collector.add(value);
    }
  } catch (error) {
    if (signal.aborted) throw error;
    throw new BrokenAnswerError('the connection broke while reading the answer', {
      cause: error,
      requestId: requestIdOf(response.headers),
    });
  }
}

/**
 * Decodes an answer the caller uses chunk by chunk as it arrives, as UTF-8 with a BOM dropped (as
 * `Response.text()` does), and scans each piece for a `__proto__` hint, so that the whole text need
 * not be searched again. Copying the chunks into one buffer to decode it would put a second copy of
 * each answer outside the heap, which the collector must account for.
 */
export class TextCollector implements ChunkCollector {
  readonly #decoder = new TextDecoder();
  readonly #pieces: string[] = [];
  readonly #scan = new ProtoHintScan();

  add(chunk: Uint8Array): void {
    this.#piece(this.#decoder.decode(chunk, { stream: true }));
  }

  finish(): DecodedBody {
    this.#piece(this.#decoder.decode());
    return { text: this.#pieces.join(''), protoFree: !this.#scan.found };
  }

  #piece(piece: string): void {
    this.#scan.add(piece);
    this.#pieces.push(piece);
  }
}

/** Collects an error answer's bytes, which ky decodes by the charset the answer names. */
export class BytesCollector implements ChunkCollector {
  readonly #chunks: Uint8Array[] = [];
  #size = 0;

  add(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#size += chunk.byteLength;
  }

  finish(): Uint8Array<ArrayBuffer> {
    const bytes = new Uint8Array(this.#size);
    let at = 0;
    for (const chunk of this.#chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return bytes;
  }
}
