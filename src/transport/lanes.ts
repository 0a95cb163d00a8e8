// Items in order through a fixed number of lanes: at most `lanes` at once, each lane taking the next
// item when its last one ends. Never a promise per item queued in bulk: a queued closure per item
// holds memory in proportion to the item count.
export async function inLanes<T>(
  items: { readonly length: number; at(index: number): T | undefined },
  lanes: number,
  each: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(0, Math.min(lanes, items.length)) }, async () => {
      while (next < items.length) {
        const i = next++;
        await each(items.at(i)!, i);
      }
    }),
  );
}
