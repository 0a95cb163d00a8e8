// The policy a job's GETs are sent under: the hedger where the job names --hedge, else the null one.
// A percentile delay reads a contender's earlier runs too, and the duplicates' budget spans them:
// the estimate is kept in the worker process (KeptBuffers.keep), from one run to the next.
import type { KeptBuffers } from '../kept/buffers.js';
import { hedgeEstimateKey, newHedgeEstimate, type EstimateJob } from './estimate.js';
import { Hedger } from './hedger.js';
import { SendOnce, type GetRun, type HedgeContext, type HedgePolicy } from './policy.js';

/** What choosing the policy reads of a kind's context. */
export interface HedgedContext extends HedgeContext {
  job: EstimateJob;
  items: { readonly length: number };
  kept?: KeptBuffers;
}

/** `sink`: none for an empty share, which sends nothing. */
export function hedgePolicy<C extends HedgedContext, S>(
  ctx: C,
  sink: S | undefined,
  get: GetRun<C, S>,
): HedgePolicy {
  const hedge = ctx.job.hedge;
  if (!hedge || sink === undefined) return new SendOnce(ctx, sink as S, get);
  const estimate = ctx.kept?.keep(hedgeEstimateKey(ctx.job, ctx.items.length), newHedgeEstimate);
  return new Hedger(ctx, sink, get, hedge, estimate);
}
