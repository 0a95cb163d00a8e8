// The SDK's clients, made before the barrier like our URLs: imports and construction are set-up.
import type http from 'node:http';
import type { BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import type { Items } from '../plan/items.js';
import { containerClient } from '../storage/target.js';
import { createAgent } from '../transport/request.js';
import type { OpRecord } from '../metrics/records.js';
import type { WorkItem } from '../plan/items.js';
import type { KindJob } from './job.js';
import type { KindContext, KindRun } from './kind.js';
import { Payloads } from '../kept/payloads.js';
import { blobServiceOf } from '../storage/target-info.js';

/**
 * The SDK's client for each item, built before the barrier: imports and construction are setup.
 * They share one agent of this run's own, capped at MAX_SOCKETS like ours, and destroyed after the
 * run, so every run of the baseline opens fresh connections, as ours do.
 */
export interface SdkClients {
  clients: ReadonlyMap<number, BlockBlobClient>;
  container: ContainerClient;
  agent: http.Agent;
}

/** An agent of the job's own, capped at MAX_SOCKETS: what each SDK kind makes, or a mix shares. */
export function sdkAgent(job: KindJob): http.Agent {
  const info = blobServiceOf(job.target);
  if (!info) throw new Error(`${job.strategy} needs a blob target`);
  return createAgent(new URL(info.endpoint), job.maxSockets, info.ca);
}

/** `shared`: the agent of a mix, whose kinds share its sockets as ours share one pool. */
export async function sdkClients(job: KindJob, items: Items, shared?: http.Agent): Promise<SdkClients> {
  const info = blobServiceOf(job.target);
  if (!info) throw new Error(`${job.strategy} needs a blob target`);
  const agent = shared ?? sdkAgent(job);
  const container = await containerClient(info, { agent });
  const clients = new Map<number, BlockBlobClient>();
  for (const i of items) clients.set(i.index, container.getBlockBlobClient(i.blob!));
  return { agent, container, clients };
}

/**
 * An SDK upload kind's set-up: its clients and payloads before the barrier; each item one call of `upload`.
 */
export async function sdkUploads(
  ctx: KindContext,
  upload: (job: KindJob, client: BlockBlobClient, item: WorkItem, payload: Buffer) => Promise<OpRecord>,
): Promise<KindRun> {
  const sdk = await sdkClients(ctx.job, ctx.items, ctx.sdkAgent);
  const payloads = await Payloads.of(ctx.items, ctx.kept);
  return {
    agent: sdk.agent,
    run: (item) => upload(ctx.job, sdk.clients.get(item.index)!, item, payloads.of(item)),
    close: async () => sdk.agent.destroy(),
  };
}
