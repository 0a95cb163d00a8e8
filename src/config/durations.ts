// Durations as every message and report writes them, so that a help line, an error and a report
// never show one time two ways: whole seconds bare ("5 s"), under a second in milliseconds
// ("250 ms"), otherwise to the hundredth ("1.50 s").

/** A duration given in milliseconds, as people read it. */
export function formatDuration(ms: number): string {
  if (ms % 1000 === 0) return `${ms / 1000} s`;
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`;
}
