// A blob service as a target: an account (key, SAS, Entra ID or anonymous) or the embedded Azurite.
// Its fixtures and uploads live in one container, checked by preflight first; the embedded one's end
// with its process, so nothing is deleted from it after a stop.
import type { ContainerClient } from '@azure/storage-blob';
import { log } from '../log/logger.js';
import { blobStore } from './blob-store.js';
import { preflightContainer, removeCreatedContainer } from './preflight.js';
import { authOf, traitsOf, type BlobServiceInfo } from './target-info.js';
import {
  coordinatorClient,
  type DownloadFixtures,
  type FixtureSetup,
  type FixtureState,
  type FixtureWriters,
  type Target,
} from './target.js';
import type { FixtureList } from '../plan/items.js';

/** What a blob target has besides its info: its label, and where it runs in a process of ours. */
export type BlobTargetParts = Omit<
  Target,
  'info' | 'traits' | 'forDownloads' | 'objectSizeBytes' | 'openFixtures' | 'openUploads' | 'stop'
> & { stop?: () => Promise<void> };

export function blobTarget(info: BlobServiceInfo, parts: BlobTargetParts): Target {
  const target: Target = {
    ...parts,
    info,
    traits: traitsOf(info),
    forDownloads: () => info,
    objectSizeBytes: async () => undefined,
    openFixtures: (lists, writers, opts) => openFixtures(target, lists, writers, opts),
    async openUploads(_prefix, { timeoutMs, signal }) {
      const container = await coordinatorClient(target);
      await preflightContainer(container, target.label, authOf(info), { timeoutMs, signal });
      return { info, store: blobStore(container) };
    },
    stop: parts.stop ?? (async () => {}),
  };
  return target;
}

async function openFixtures(
  target: Target,
  lists: readonly FixtureList[],
  writers: FixtureWriters,
  opts: FixtureSetup,
): Promise<DownloadFixtures> {
  const info = target.info as BlobServiceInfo;
  // One coordinator client for the fixtures and their cleanup (with a CA, each client has an agent of
  // its own).
  const container = await coordinatorClient(target);
  const readOnly = !info.key && !info.sas && !info.bearer;
  const bounds = { timeoutMs: opts.timeoutMs, signal: opts.signal };
  // A container this run created goes with --cleanup too; a scale-out client's may hold the others'
  // markers.
  const created =
    !readOnly &&
    (await preflightContainer(container, target.label, authOf(info), bounds)).created &&
    !opts.keepContainer;
  const state = await writers.container.ensure(container, lists, { ...opts, readOnly });
  return {
    state,
    removeCreated: () => removeCreated(target, container, state, created, writers, opts.timeoutMs),
  };
}

/** Interrupted runs clean up the fixtures they created, as --cleanup would. */
async function removeCreated(
  target: Target,
  container: ContainerClient,
  state: FixtureState,
  createdContainer: boolean,
  writers: FixtureWriters,
  timeoutMs: number,
): Promise<void> {
  // The embedded Azurite's end with its process (in memory), so nothing is deleted from it.
  if (target.traits.ephemeral) return;
  if (state.created.length) {
    await writers.container.remove(container, state.created, timeoutMs);
    log.info(`cleanup: removed ${state.created.length} fixture(s) this run created`);
  }
  if (createdContainer) await removeCreatedContainer(container);
}
