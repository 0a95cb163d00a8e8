// A many-blob fixture set on a plain HTTP(S) server (--url): the same names as on a blob target,
// as paths below the URL (<url>/many/<count>x<bytes>/file-NNNNNNN). Each file is asked for with a
// HEAD; one that is missing or of another length is PUT first (as an upload would), outside any
// timing, so a writable server (nginx WebDAV) needs no preparation and a read-only one needs the
// files there already. Content is checked by every run's MD5s, not here.
import pLimit from 'p-limit';
import { log } from '../log/logger.js';
import { RequestSigner, PLAIN_PUT_STATUSES, type TargetInfo } from '../storage/target.js';
import type { FixtureSpec } from '../strategies/strategy.js';
import { shownUrl } from '../transport/http-client.js';
import { NodeHttpClient } from '../transport/request.js';
import { contentBuffer, FIXTURE_SEED } from './content.js';
import type { FixtureState } from './fixtures.js';

const IN_FLIGHT = 32;

type UrlInfo = Extract<TargetInfo, { kind: 'url' }>;

export async function ensureUrlFixtures(info: UrlInfo, specs: readonly FixtureSpec[], opts: { timeoutMs: number; signal?: AbortSignal }): Promise<FixtureState> {
  const signer = new RequestSigner({ ...info, folder: true });
  const client = NodeHttpClient.to(new URL(info.url), IN_FLIGHT);
  const limit = pLimit(IN_FLIGHT);
  const state: FixtureState = { created: [], reused: [] };
  try {
    await Promise.all(specs.map((spec) => limit(async () => {
      if (opts.signal?.aborted) return;
      const url = signer.blobUrl(spec.blob);
      const headers = signer.headers('HEAD', url);
      const head = await client.request({ url, method: 'HEAD', headers, timeoutMs: opts.timeoutMs, trace: false, expectStatus: [200] });
      if (!head.error && Number(head.headers['content-length']) === spec.lengthBytes) {
        state.reused.push(spec.blob);
        return;
      }
      if (head.status === 0) throw new Error(`fixture ${shownUrl(url)}: ${head.error}`);
      const body = contentBuffer(FIXTURE_SEED, spec.offsetBytes, spec.lengthBytes);
      const put = await client.request({
        url, method: 'PUT', body, headers: signer.headers('PUT', url, { 'content-length': String(body.length) }), timeoutMs: opts.timeoutMs, trace: false,
        expectStatus: PLAIN_PUT_STATUSES,
      });
      if (put.error) {
        throw new Error(
          `fixture ${shownUrl(url)} is ${head.error ? 'missing' : 'of another size'} and the server refused to take it (${put.error}); ` +
            'put the files there first (see README, "Many blobs") or allow PUT (nginx: dav_methods PUT DELETE; create_full_put_path on)',
        );
      }
      state.created.push(spec.blob);
    })));
  } finally {
    client.close();
  }
  log.info(`fixtures: ${state.created.length} PUT below ${shownUrl(info.url)}, ${state.reused.length} there already`);
  return state;
}

/** --cleanup: DELETE the files this run PUT; a refusal is a warning, not a failure. */
export async function removeUrlFixtures(info: UrlInfo, names: readonly string[], timeoutMs: number): Promise<void> {
  const signer = new RequestSigner({ ...info, folder: true });
  const client = NodeHttpClient.to(new URL(info.url), IN_FLIGHT);
  const limit = pLimit(IN_FLIGHT);
  try {
    const failed = (await Promise.all(names.map((name) => limit(async () => {
      const url = signer.blobUrl(name);
      const r = await client.request({ url, method: 'DELETE', headers: signer.headers('DELETE', url), timeoutMs, trace: false });
      return r.error && r.status !== 404 ? r.error : undefined;
    })))).filter((e) => e !== undefined);
    if (failed.length) log.warn(`cleanup: ${failed.length} of ${names.length} file(s) could not be deleted below ${shownUrl(info.url)}: ${failed[0]}`);
  } finally {
    client.close();
  }
}
