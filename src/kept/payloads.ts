// Upload payloads, made before the barrier (generation never counts as upload time): one buffer
// per distinct content (its place in the seed's stream, at the longest length asked of it), so files
// that share a content share a buffer and a request finds its own by the item's content.
import { contentBuffer, FIXTURE_SEED } from '../payload/content.js';
import type { Items, WorkItem } from '../plan/items.js';

const yieldToEvents = () => new Promise<void>((resolve) => setImmediate(resolve));

export class Payloads {
  /** By content offset: the longest length any item asks of it; a shorter item takes a prefix. */
  private readonly byContent = new Map<number, Buffer>();

  /**
   * `kept`: where the worker process keeps the last run's payloads. Every run of a contender (and the
   * other upload contenders, which share the fixture's content) asks for the same buffers: they are
   * taken from there, not made again. Made afresh each run, they would cost the setup time and, with
   * the old set not yet collected while the new one is made, twice the pool's memory at the run's
   * peak. Payload buffers are only ever read (request bodies), so sharing them between runs is safe.
   */
  static async of(items: Items, kept?: { payloads?: Payloads }): Promise<Payloads> {
    const previous = kept?.payloads;
    // Files of drawn sizes share their offset's content at different lengths: one buffer each, at
    // the longest, so the pool stays the distinct contents, not one buffer per file.
    const longest = new Map<number, number>();
    for (const i of items) {
      longest.set(i.destOffsetBytes, Math.max(longest.get(i.destOffsetBytes) ?? 0, i.lengthBytes));
    }
    const payloads = new Payloads();
    let sinceYield = 0;
    for (const [offset, length] of longest) {
      const kept = previous?.byContent.get(offset);
      if (kept && kept.length >= length) {
        payloads.byContent.set(offset, kept);
        continue;
      }
      payloads.byContent.set(offset, contentBuffer(FIXTURE_SEED, offset, length));
      // Generation can take seconds: let a disconnect (the coordinator gone) or a stop get through.
      sinceYield += length + 1024;
      if (sinceYield >= 16 * 1024 * 1024) {
        sinceYield = 0;
        await yieldToEvents();
      }
    }
    if (kept) kept.payloads = payloads;
    return payloads;
  }

  of(item: WorkItem): Buffer {
    const bytes = this.byContent.get(item.destOffsetBytes)!;
    return bytes.length === item.lengthBytes ? bytes : bytes.subarray(0, item.lengthBytes);
  }
}
