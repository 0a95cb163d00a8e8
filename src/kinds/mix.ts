// mix: each item is one operation of a mixed run (a GET, a PUT, a HEAD, a List Blobs page, a
// DELETE), its operation drawn from the job's weights and seed by the item's index. Every
// operation goes through its own request kind, set up for its own items before the barrier,
// checked by its own check after, and verified by its own verify: this kind only deals items out.
// `mix` goes through our transport; `sdk-mix` (sdk-mix.ts) through the SDK's kinds.
import type { OpRecord } from '../metrics/records.js';
import type { RecordTable } from '../metrics/record-table.js';
import { MIX_OPS, opAt, type MixOp } from '../plan/mix.js';
import type { WorkItem } from '../plan/items.js';
import type { Verification } from '../results/record.js';
import type { MixJob } from './job.js';
import type { CheckNote, KindContext, KindRun, RequestKind, VerifyInput } from './kind.js';
import { kind as del } from './delete.js';
import { kind as get } from './get.js';
import { kind as head } from './head.js';
import { kind as list } from './list.js';
import { kind as put } from './put.js';
import { DOWNLOAD_WORKLOADS, UPLOAD_WORKLOADS } from '../plan/workload.js';

/** The kind each operation goes through: our own transport's. */
const OURS: Readonly<Record<MixOp, RequestKind>> = { get, put, head, list, delete: del };

/** One operation's share of a job: its kind set up, its items and their positions in the share. */
interface OpShare {
  run: KindRun;
  items: WorkItem[];
  positions: number[];
}

const mixOf = (job: { mix?: MixJob }): MixJob => {
  if (!job.mix) throw new Error('a mix job carries its weights and seed (job.mix)');
  return job.mix;
};

/** Items by operation, with their positions: what each kind is set up for and checks. */
type Group = { items: WorkItem[]; positions: number[] };

function byOp(mix: MixJob, items: Iterable<WorkItem>): Map<MixOp, Group> {
  const out = new Map<MixOp, Group>();
  let position = 0;
  for (const item of items) {
    const op = opAt(mix, item.index);
    let group = out.get(op);
    if (!group) out.set(op, (group = { items: [], positions: [] }));
    group.items.push(item);
    group.positions.push(position++);
  }
  return out;
}

/** A listing of one page is one record: its row stays the item's. */
const one = (got: OpRecord | OpRecord[]) => (Array.isArray(got) && got.length === 1 ? got[0]! : got);

/**
 * A mix whose operations go through `kinds`; `transport`: whether they are our transport's (one
 * raw pool for all) or the SDK's, which then share one agent (`shared`), as ours share one pool.
 */
export function mixKind(
  name: string,
  transport: boolean,
  kinds: Readonly<Record<MixOp, RequestKind>>,
  shared?: (ctx: KindContext) => KindContext['sdkAgent'],
): RequestKind {
  return {
    name,
    unit: () => 'ops/s',
    transport,
    async setup(ctx: KindContext): Promise<KindRun> {
      const mix = mixOf(ctx.job);
      const agent = shared?.(ctx);
      const own = agent ? { ...ctx, sdkAgent: agent } : ctx;
      const shares = new Map<MixOp, OpShare>();
      for (const [op, group] of byOp(mix, ctx.items)) {
        shares.set(op, { ...group, run: await kinds[op].setup({ ...own, items: group.items }) });
      }
      return mixRun(mix, shares, agent);
    },
    verify: (v) => verifyMix(v, kinds),
  };
}

export const kind: RequestKind = mixKind('mix', true, OURS);

/** Deals each item to its operation's kind; lets every one go at the end. */
function mixRun(mix: MixJob, shares: ReadonlyMap<MixOp, OpShare>, agent?: KindContext['sdkAgent']): KindRun {
  const shareOf = (item: WorkItem) => shares.get(opAt(mix, item.index))!.run;
  return {
    ...(agent ? { agent } : {}),
    run: async (item, lane, queuedAt) => one(await shareOf(item).run(item, lane, queuedAt)),
    send(item, lane, queuedAt, done, fail) {
      const run = shareOf(item);
      if (run.send) run.send(item, lane, queuedAt, done, fail);
      else run.run(item, lane, queuedAt).then((got) => done(one(got) as OpRecord), fail);
    },
    check: (records, signal) => checkShares(shares, records, signal),
    close: async () => {
      for (const share of shares.values()) await share.run.close();
    },
  };
}

/**
 * Each operation's check on its own rows, in turn (a table of its rows, as its kind expects),
 * what it found copied back: MD5s, read-back errors, items equal to the fixture.
 */
async function checkShares(
  shares: ReadonlyMap<MixOp, OpShare>,
  records: RecordTable,
  signal: AbortSignal,
): Promise<CheckNote> {
  const equal: number[] = [];
  for (const share of shares.values()) {
    if (!share.run.check) continue;
    const own = records.pick(share.positions);
    const note = await share.run.check(own, signal);
    share.positions.forEach((row, k) => {
      const md5 = own.md5(k);
      if (md5 !== undefined && md5 !== records.md5(row)) records.setMd5(row, md5);
      const error = own.readBackError(k);
      if (error !== undefined) records.setReadBackError(row, error);
    });
    equal.push(...(note?.equalToFixture ?? []));
  }
  return equal.length ? { equalToFixture: equal } : {};
}

/** What each operation's own verify is told its workload is. */
const WORKLOAD_OF: Readonly<Record<MixOp, VerifyInput['workload']>> = {
  get: DOWNLOAD_WORKLOADS.files,
  put: UPLOAD_WORKLOADS.files,
  head: DOWNLOAD_WORKLOADS.head,
  list: DOWNLOAD_WORKLOADS.list,
  delete: UPLOAD_WORKLOADS.files,
};

/** Each operation's records verified by its own kind; the run is verified when every one is. */
export async function verifyMix(
  v: VerifyInput,
  kinds: Readonly<Record<MixOp, RequestKind>>,
): Promise<Verification> {
  const mix = mixOf(v);
  const groups = byOp(mix, v.items);
  const rows = new Map<MixOp, number[]>();
  for (let row = 0; row < v.records.length; row++) {
    const op = opAt(mix, v.records.get('item', row));
    const own = rows.get(op);
    if (own) own.push(row);
    else rows.set(op, [row]);
  }
  const got: [MixOp, Verification][] = [];
  const { tally: _mixed, ...rest } = v;
  for (const op of MIX_OPS) {
    const group = groups.get(op);
    if (!group) continue;
    const records = v.records.pick(rows.get(op) ?? []);
    got.push([
      op,
      await kinds[op].verify({ ...rest, workload: WORKLOAD_OF[op], items: group.items, records }),
    ]);
  }
  return together(got);
}

/** Verified when every operation is; failed when one failed; else not verified, saying which and why. */
function together(got: readonly [MixOp, Verification][]): Verification {
  const verification = got.map(([op, g]) => `${op}: ${g.verification}`).join('; ');
  const failed = got.find(([, g]) => !g.verified && g.notVerified === undefined);
  if (failed)
    return { verified: false, verification, ...(failed[1].error ? { error: failed[1].error } : {}) };
  const unverified = got.filter(([, g]) => g.notVerified !== undefined);
  if (!unverified.length) return { verified: true, verification };
  const why = unverified.map(([op, g]) => `${op}: ${g.notVerified}`).join('; ');
  return { verified: false, notVerified: why, verification };
}
