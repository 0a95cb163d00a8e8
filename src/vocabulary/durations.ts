// Durations as every message and report writes them, so that an error and a report never show one
// time two ways: whole seconds bare ("5 s"), under a second in milliseconds ("250 ms"), otherwise to
// the hundredth ("1.50 s"); and, for --help and its errors, as the parser takes them back ("30s").

/** A duration given in milliseconds, as people read it. */
export function formatDuration(ms: number): string {
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** A duration as --help shows it and the parser takes it back: 30s, 500ms, 10m, 24h. */
export function formatDurationExact(ms: number): string {
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
