// Which stored events the app has taken: `FILE.forwarded` beside the store, one line per
// event the app answered 2xx (docs/webhooks.md, "Owed events and retries"). Lines are not
// synced one by one, and a torn last line is cut off on open: losing one only means its event
// is forwarded again, which the spec's delivery rules already ask the app to tolerate.
import { constants } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { openPrivateFile } from '../fs/private.js';
import { parseEventText, wholeLines, wholeLinesEnd } from './store.js';

export class ForwardLog {
  private queue: string[] = [];
  private writing: Promise<void> | null = null;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
    /** Ids the app has taken, from earlier runs and this one. */
    readonly taken: Set<string>,
  ) {}

  /**
   * Opens the log of `storePath`, reading the ids in it; with `create`, a missing log is
   * created (0600), else a missing log is undefined.
   */
  static async open(storePath: string, opts: { create: boolean }): Promise<ForwardLog | undefined> {
    const path = `${storePath}.forwarded`;
    let handle: FileHandle;
    try {
      ({ handle } = await openPrivateFile(path, { flags: constants.O_RDWR | constants.O_APPEND, create: opts.create, what: `the forward log ${path}` }));
    } catch (err) {
      if (!opts.create && (err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    const taken = new Set<string>();
    try {
      const size = (await handle.stat()).size;
      const whole = await wholeLinesEnd(handle, size);
      if (whole < size) await handle.truncate(whole);
      // A line that is not a record is ignored, as a reader of the log would.
      for await (const line of wholeLines(handle, whole)) {
        const id = parseEventText(line)?.id;
        if (id) taken.add(id);
      }
    } catch (err) {
      await handle.close().catch(() => undefined);
      throw err;
    }
    return new ForwardLog(path, handle, taken);
  }

  /** Records that the app took `id`; the write happens in the background (see above). */
  record(r: { id: string; status: number; at: Date; to: string }): void {
    this.taken.add(r.id);
    this.queue.push(`${JSON.stringify({ id: r.id, status: r.status, at: r.at.toISOString(), to: r.to })}\n`);
    this.writing ??= this.writeLoop();
  }

  private async writeLoop(): Promise<void> {
    while (this.queue.length > 0) {
      const text = this.queue.join('');
      this.queue = [];
      try {
        // Opened O_APPEND: the whole text goes at the end.
        await this.handle.appendFile(text);
      } catch {
        // A lost line only means its event is forwarded again in a later run (see above);
        // the id stays taken for this one.
      }
    }
    this.writing = null;
  }

  async close(): Promise<void> {
    while (this.writing) await this.writing;
    await this.handle.datasync().catch(() => undefined);
    await this.handle.close();
  }
}
