// Parses human sizes ("80MiB", "100KB", "12800000") into whole bytes, and writes bounds back.
const UNITS: ReadonlyMap<string, number> = new Map([
  ['', 1],
  ['b', 1],
  ['kb', 1000],
  ['mb', 1000 ** 2],
  ['gb', 1000 ** 3],
  ['tb', 1000 ** 4],
  ['pb', 1000 ** 5],
  ['kib', 1024],
  ['mib', 1024 ** 2],
  ['gib', 1024 ** 3],
  ['tib', 1024 ** 4],
  ['pib', 1024 ** 5],
  ['k', 1024],
  ['m', 1024 ** 2],
  ['g', 1024 ** 3],
  ['t', 1024 ** 4],
  ['p', 1024 ** 5],
]);

/**
 * The byte count of a size written as digits (optionally with a decimal part) and a unit, however
 * large; undefined when the text is not a size. Callers compare it with their own bound.
 */
export function parseSizeUnbounded(text: string, bareUnitBytes = 1): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!match) return undefined;
  const unit = match[2]!.toLowerCase();
  const multiplier = unit === '' ? bareUnitBytes : UNITS.get(unit);
  if (multiplier === undefined) return undefined;
  return Math.round(Number(match[1]) * multiplier);
}

/** Returns the byte count, or undefined when the text is not a size or is beyond 2^53 bytes. */
export function parseSizeBytes(text: string, bareUnitBytes = 1): number | undefined {
  const bytes = parseSizeUnbounded(text, bareUnitBytes);
  return bytes !== undefined && Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A bound as the user would type it: the largest binary unit that divides it (4000MiB, 1TiB). */
export function formatSizeExact(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && value % 1024 === 0 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${value}${units[i]}`;
}

/**
 * A byte count as every message and report writes it, in the largest binary unit it reaches: bytes
 * as they are, then three significant figures at most with no trailing zeros ("1.5 MiB", "1.25 GiB",
 * "150 MiB").
 */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${i === 0 ? value : +value.toFixed(value >= 100 ? 0 : 2)} ${units[i]}`;
}
