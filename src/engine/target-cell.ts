// Opening a cell's target, either direction: set-up ends at once if the target's own process dies
// (the embedded Azurite, OOM-killed by a fixture), a failed set-up lets go of the target, and the
// open workload carries what the target says of itself (label, clock, tokens, its death).
import type { Credentials } from '../vocabulary/credentials.js';
import { log } from '../log/logger.js';
import { openTarget } from '../storage/open-target.js';
import { setupFailure, tokenOf, whileAlive, type Target } from '../storage/target.js';
import type { OpenWorkload } from './session.js';

/** What a direction opens on its target: everything an open workload has but the target's own. */
export type OpenedOn = Omit<OpenWorkload, 'target' | 'serverClock' | 'token' | 'lost' | 'stop'>;

export async function openOnTarget(
  where: { credentials: Credentials; container: string },
  session: AbortSignal,
  open: (target: Target, signal: AbortSignal, session: AbortSignal) => Promise<OpenedOn>,
  say: (target: Target) => string = (target) => `target: ${target.label}`,
): Promise<OpenWorkload> {
  const target = await openTarget(where.credentials, where.container, session);
  const signal = whileAlive(target, session);
  try {
    log.info(say(target));
    const opened = await open(target, signal, session);
    return {
      target: target.label,
      serverClock: target.serverClock,
      ...tokenOf(target),
      ...(target.lost ? { lost: target.lost } : {}),
      ...opened,
      stop: () => target.stop(),
    };
  } catch (err) {
    await target.stop();
    throw setupFailure(err, signal);
  }
}
