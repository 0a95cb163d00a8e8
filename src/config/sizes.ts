// Parses human sizes ("80MiB", "100KB", "12800000") into whole bytes.
const UNITS: Record<string, number> = {
  '': 1, b: 1,
  kb: 1000, mb: 1000 ** 2, gb: 1000 ** 3, tb: 1000 ** 4,
  kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4,
  k: 1024, m: 1024 ** 2, g: 1024 ** 3,
};

/** Returns the byte count, or undefined when the text is not a size. */
export function parseSizeBytes(text: string, bareUnitBytes = 1): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!match) return undefined;
  const unit = match[2]!.toLowerCase();
  const multiplier = unit === '' ? bareUnitBytes : UNITS[unit];
  if (multiplier === undefined) return undefined;
  const bytes = Number(match[1]) * multiplier;
  if (!Number.isFinite(bytes) || !Number.isSafeInteger(Math.round(bytes))) return undefined;
  return Math.round(bytes);
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let i = 0;
  while (value >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${units[i]}`;
}
