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

export async function sdkClients(job: KindJob, items: Items): Promise<SdkClients> {
  if (job.target.kind !== 'blob') throw new Error(`${job.strategy} needs a blob target`);
  const agent = createAgent(new URL(job.target.endpoint), job.maxSockets, job.target.ca);
  const container = await containerClient(job.target, { agent });
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
  const sdk = await sdkClients(ctx.job, ctx.items);
  const payloads = await Payloads.of(ctx.items, ctx.kept);
  return {
    agent: sdk.agent,
    run: (item) => upload(ctx.job, sdk.clients.get(item.index)!, item, payloads.of(item)),
    close: async () => sdk.agent.destroy(),
  };
}
