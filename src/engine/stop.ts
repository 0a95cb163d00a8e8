// A stop request (SIGINT/SIGTERM): no new work starts, in-flight work finishes within a grace
// period, and whatever was measured is written. One flag per process, read by the engines.
export const STOP_GRACE_MS = 10_000;

let stopSignal: NodeJS.Signals | undefined;
const listeners = new Set<(signal: NodeJS.Signals) => void>();

export function requestStop(signal: NodeJS.Signals): void {
  if (stopSignal) return;
  stopSignal = signal;
  for (const l of listeners) l(signal);
}

export const stopRequested = (): NodeJS.Signals | undefined => stopSignal;

export function onStop(listener: (signal: NodeJS.Signals) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
