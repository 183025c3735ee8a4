// The export's last stage before its destination (the file, or stdout): every byte of the
// output passes here once, so the SHA-256 and the length it reports are those of what the
// destination received (the manifest's hash), whatever the format.
//
// Each chunk is handed on and called back only once the destination has taken it (its
// write callback), so backpressure reaches the writer, a destination's error fails the
// write that met it, and the writer may reuse a chunk's memory after the callback.
import { createHash } from 'node:crypto';
import { finished } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { RELEASES_CHUNKS } from './ordered-output.js';

export class DigestSink extends Writable {
  readonly [RELEASES_CHUNKS] = true;
  private readonly hash = createHash('sha256');
  private total = 0;
  private readonly onDestError = (err: Error) => this.destroy(err);

  /** `endDest`: end the destination when this ends (a file; never stdout). */
  constructor(
    private readonly dest: Writable,
    private readonly endDest: boolean,
  ) {
    super({ highWaterMark: 256 * 1024 });
    dest.on('error', this.onDestError);
  }

  get bytes(): number {
    return this.total;
  }

  /** Hex SHA-256 of everything written (read it once the stream has finished). */
  digest(): string {
    return this.hash.copy().digest('hex');
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (err?: Error | null) => void): void {
    if (this.dest.destroyed || this.dest.errored) {
      callback(this.dest.errored ?? new Error('output closed'));
      return;
    }
    this.hash.update(chunk);
    this.total += chunk.length;
    this.dest.write(chunk, (err) => callback(err ?? null));
  }

  override _final(callback: (err?: Error | null) => void): void {
    if (!this.endDest) {
      callback();
      return;
    }
    this.dest.end();
    finished(this.dest).then(
      () => callback(),
      (err: Error) => callback(err),
    );
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    this.dest.off('error', this.onDestError);
    callback(err);
  }
}
