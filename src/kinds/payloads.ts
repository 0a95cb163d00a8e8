// Upload payloads, made before the barrier (generation never counts as upload time): one buffer
// per distinct content (its place in the seed's stream and its length), so files that share a
// content share a buffer and a request finds its own by the item's content.
import { contentBuffer, FIXTURE_SEED } from '../payload/content.js';
import type { Items, WorkItem } from '../plan/items.js';

const yieldToEvents = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * The last run's payloads in this worker process. Every run of a contender (and the other upload
 * contenders, which share the fixture's content) asks for the same buffers: they are taken from here,
 * not made again. Making them afresh each run cost the setup time and, with the old set not yet
 * collected while the new one was made, twice the pool's memory (64 MiB) at the run's peak.
 * Payload buffers are only ever read (request bodies), so sharing them between runs is safe.
 */
let previous: Payloads | undefined;

export class Payloads {
  private readonly byContent = new Map<string, Buffer>();

  private static key(i: WorkItem): string {
    return `${i.destOffsetBytes}:${i.lengthBytes}`;
  }

  static async of(items: Items): Promise<Payloads> {
    const payloads = new Payloads();
    let sinceYield = 0;
    for (const i of items) {
      const key = Payloads.key(i);
      if (payloads.byContent.has(key)) continue;
      const kept = previous?.byContent.get(key);
      payloads.byContent.set(key, kept ?? contentBuffer(FIXTURE_SEED, i.destOffsetBytes, i.lengthBytes));
      if (kept) continue;
      // Generation can take seconds: let a disconnect (the coordinator gone) or a stop get through.
      sinceYield += i.lengthBytes + 1024;
      if (sinceYield >= 16 * 1024 * 1024) {
        sinceYield = 0;
        await yieldToEvents();
      }
    }
    previous = payloads;
    return payloads;
  }

  of(item: WorkItem): Buffer {
    return this.byContent.get(Payloads.key(item))!;
  }
}
