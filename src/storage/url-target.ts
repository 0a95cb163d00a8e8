// A plain HTTP(S) URL as a target: one object at the URL itself, or a many-blob set and uploads as
// paths below it. It has no container and keeps no MD5: its one object's size comes from a HEAD,
// and what it was sent is read back.
import { log } from '../log/logger.js';
import { preflightUrl, preflightUrlUpload } from './preflight.js';
import { asFolder, traitsOf, type PlainUrlInfo } from './target-info.js';
import { RequestSigner, type DownloadFixtures, type Target } from './target.js';
import { urlStore } from './url-store.js';

export function urlTarget(url: string): Target {
  const info: PlainUrlInfo = { kind: 'url', url };
  return {
    info,
    traits: traitsOf(info),
    label: `url ${new URL(url).host}`,
    forDownloads: (set) => (set ? asFolder(info) : info),
    objectSizeBytes: (opts) => preflightUrl(url, opts),
    async openFixtures(lists, writers, opts): Promise<DownloadFixtures> {
      // One object: the URL's own, whatever it holds; a set: ours, written below it where missing.
      const state = opts.set
        ? await writers.url.ensure(info, lists, opts)
        : { created: [] as string[], reused: 0 };
      return {
        state,
        async removeCreated() {
          if (!state.created.length) return;
          await writers.url.remove(info, state.created, opts.timeoutMs);
          log.info(`cleanup: removed ${state.created.length} fixture(s) this run created`);
        },
      };
    },
    async openUploads(prefix, { timeoutMs, keep, signal }) {
      // A folder: each blob name a path below the URL, probed with one PUT and DELETE, outside any timing.
      const folder = asFolder(info);
      const probe = `${prefix}/probe`;
      const probeUrl = new RequestSigner(folder).blobUrl(probe);
      const { deleteRefused } = await preflightUrlUpload(url, probeUrl, { timeoutMs, signal });
      if (deleteRefused && keep)
        log.verbose(`${probe} stays on the server: DELETE failed (${deleteRefused})`);
      const store = urlStore(info, { prefix, timeoutMs, deleteRefused: keep ? undefined : deleteRefused });
      return { info: folder, store };
    },
    stop: async () => {},
  };
}
