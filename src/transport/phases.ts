// Phase names and meanings, in one place. Consecutive timestamps bound each phase, so the phases of
// one request add up to its total exactly.
export const PHASES = ['retry', 'wait', 'dns', 'tcp', 'tls', 'send', 'firstByte', 'download'] as const;
export type Phase = (typeof PHASES)[number];

export const PHASE_MEANINGS: Record<Phase, string> = {
  retry: 'failed tries and the backoff after them (present only on retried requests)',
  wait: 'queued in the agent until a socket was assigned',
  dns: 'name lookup (new sockets to a host name only)',
  tcp: 'TCP connect (new sockets only)',
  tls: 'TLS handshake (new https sockets only)',
  send: 'writing the request (headers and body) to the socket',
  firstByte: 'request fully sent -> response headers received',
  download: 'first -> last byte of the response body',
};

/** Phases that exist only on a fresh connection; a reused socket has none of them. */
export const CONNECTION_PHASES: readonly Phase[] = ['dns', 'tcp', 'tls'];

export type PhaseDurationsMs = Partial<Record<Phase, number>>;

/**
 * A request's phases as numbers in PHASES' order, NaN where it had none, written into `out`. Named
 * reads: a loop over PHASES would read each by a computed key, a megamorphic lookup, and every
 * request is read three times (its row, its histograms, its sums).
 */
export function phasesInto(p: PhaseDurationsMs, out: Float64Array): Float64Array {
  out[0] = p.retry ?? Number.NaN;
  out[1] = p.wait ?? Number.NaN;
  out[2] = p.dns ?? Number.NaN;
  out[3] = p.tcp ?? Number.NaN;
  out[4] = p.tls ?? Number.NaN;
  out[5] = p.send ?? Number.NaN;
  out[6] = p.firstByte ?? Number.NaN;
  out[7] = p.download ?? Number.NaN;
  return out;
}
