// A many-blob fixture set on a plain HTTP(S) server (--url): the same names as on a blob target,
// as paths below the URL (<url>/many/<count>x<bytes>/file-NNNNNNN). Each file is asked for with a
// HEAD; one that is missing or of another length is PUT first (as an upload would), outside any
// timing, so a writable server (nginx WebDAV) needs no preparation and a read-only one needs the
// files there already. Content is checked by every run's MD5s, not here.
//
// A plain server cannot list a folder, and a HEAD per file costs seconds at 100,000 files, every
// session. So once every file of a set is found or PUT, a marker goes beside them
// (`many/<count>x<bytes>/blob-cacher-set.json`: seed, count, size); a later session that finds it
// asks for it and for a sample of the files (the first, the last and evenly spaced ones between)
// instead of all. Any sampled file missing or of another length: every file is asked for again.
// Delete the marker to have the next session check every file.
import { log } from '../log/logger.js';
import {
  RequestSigner,
  PLAIN_PUT_STATUSES,
  type FixtureState,
  type FixtureWriter,
  type PlainUrlInfo,
} from '../storage/target.js';
import { uniqueFixtures, type SetFixtures } from '../strategies/many-blobs.js';
import type { FixtureList, FixtureSpec } from '../plan/items.js';
import { shownUrl } from '../transport/http-client.js';
import { inLanes } from '../transport/lanes.js';
import { NodeHttpClient } from '../transport/request.js';
import { isThrottle, outcomeOf, requestWithRetries } from '../transport/retry.js';
import type { HttpRequest } from '../transport/http-client.js';
import { contentBuffer, FIXTURE_SEED } from '../payload/content.js';

const IN_FLIGHT = 32;
/** The marker's name below a set's folder. */
export const SET_MARKER = 'blob-cacher-set.json';
/** Files of a marked set asked for by a later session, spread over it. */
export const MARKED_SAMPLE = 32;

/** What a set's marker says: the set it vouches for, nothing else. */
export const markerText = (set: SetFixtures) =>
  `${JSON.stringify({ seed: FIXTURE_SEED, count: set.length, sizeBytes: set.sizeBytes })}\n`;

/** `n` positions of `length`, evenly spread, the first and the last among them. */
export function spreadPositions(length: number, n: number): number[] {
  if (length <= n) return Array.from({ length }, (_, i) => i);
  return Array.from({ length: n }, (_, k) => Math.round((k * (length - 1)) / (n - 1)));
}

/** What a fixture request still throttled after its retries says: the server's load, never a missing file. */
const throttledLine = (method: string, url: URL, status: number, retries: number) =>
  `fixture ${shownUrl(url)}: the server throttled the ${method} (${status}) ` +
  `and every one of its ${retries} retries; ` +
  'it is busy (which says nothing of the file): wait and run again, or put less load on it ' +
  '(--concurrency, --processes, --max-retries)';

export interface UrlFixtureOptions {
  timeoutMs: number;
  /** Retries of a fixture's HEAD or PUT, as a run's requests have (--max-retries; 3). */
  maxRetries?: number;
  signal?: AbortSignal;
}

export async function ensureUrlFixtures(
  info: PlainUrlInfo,
  lists: readonly FixtureList[],
  opts: UrlFixtureOptions,
): Promise<FixtureState> {
  const { sets, blobs } = uniqueFixtures(lists);
  const maker = new UrlFixtureMaker(info, opts);
  try {
    for (const set of sets) {
      if (opts.signal?.aborted) break;
      await maker.ensureSet(set);
    }
    await inLanes(blobs, IN_FLIGHT, (spec) => maker.ensure(spec));
  } finally {
    maker.client.close();
  }
  const { state } = maker;
  const marked = state.created
    .filter((name) => name.endsWith(`/${SET_MARKER}`))
    .map((name) => name.slice(0, -SET_MARKER.length - 1));
  const markedText = marked.length ? `; ${marked.join(', ')} marked complete` : '';
  log.info(
    `fixtures: ${state.created.length - marked.length} PUT below ${shownUrl(info.url)}, ` +
      `${state.reused} there already${markedText}`,
  );
  return state;
}

/** One session's fixtures below a plain URL: asked for with HEAD, PUT where missing or of another size. */
class UrlFixtureMaker {
  readonly state: FixtureState = { created: [], reused: 0 };
  readonly client: NodeHttpClient;
  private readonly signer: RequestSigner;
  private readonly opts: UrlFixtureOptions;

  constructor(info: PlainUrlInfo, opts: UrlFixtureOptions) {
    this.opts = opts;
    this.signer = new RequestSigner({ ...info, folder: true });
    this.client = NodeHttpClient.to(new URL(info.url), IN_FLIGHT);
  }

  /** Retried as a run's requests are (503/429 with backoff or Retry-After, resets, timeouts). */
  private send(req: HttpRequest) {
    return requestWithRetries(() => this.client.request(req).then(outcomeOf), {
      maxRetries: this.opts.maxRetries ?? 3,
      label: () => `fixture ${req.method} ${shownUrl(req.url)}`,
      signal: this.opts.signal,
    });
  }

  private async head(spec: FixtureSpec) {
    const url = this.signer.blobUrl(spec.blob);
    const headers = this.signer.headers('HEAD', url);
    const { timeoutMs } = this.opts;
    const r = await this.send({ url, method: 'HEAD', headers, timeoutMs, trace: false, expectStatus: [200] });
    if (r.status === 0) throw new Error(`fixture ${shownUrl(url)}: ${r.error}`);
    if (isThrottle(r.status)) throw new Error(throttledLine('HEAD', url, r.status, r.retries));
    return {
      url,
      there: !r.error,
      good: !r.error && Number(r.headers['content-length']) === spec.lengthBytes,
    };
  }

  private put(url: URL, body: Buffer) {
    return this.send({
      url,
      method: 'PUT',
      body,
      headers: this.signer.headers('PUT', url, { 'content-length': String(body.length) }),
      timeoutMs: this.opts.timeoutMs,
      trace: false,
      expectStatus: PLAIN_PUT_STATUSES,
    });
  }

  async ensure(spec: FixtureSpec): Promise<void> {
    if (this.opts.signal?.aborted) return;
    const { url, there, good } = await this.head(spec);
    if (good) {
      this.state.reused++;
      return;
    }
    const r = await this.put(url, contentBuffer(FIXTURE_SEED, spec.offsetBytes, spec.lengthBytes));
    if (r.error && isThrottle(r.status)) throw new Error(throttledLine('PUT', url, r.status, r.retries));
    if (r.error) {
      throw new Error(
        `fixture ${shownUrl(url)} is ${there ? 'of another size' : 'missing'} and the server refused to ` +
          `take it (${r.error}); put the files there first (see README, "Many blobs") or allow PUT ` +
          '(nginx: dav_methods PUT DELETE; create_full_put_path on)',
      );
    }
    this.state.created.push(spec.blob);
  }

  /** A set: taken as it is where its marker vouches for it and a sample of its files is there. */
  async ensureSet(set: SetFixtures): Promise<void> {
    const marker = this.signer.blobUrl(`${set.prefix}/${SET_MARKER}`);
    if (await markedComplete(this.client, this.signer, marker, set, this.opts.timeoutMs)) {
      const sample = spreadPositions(set.length, MARKED_SAMPLE);
      const missing: string[] = [];
      await inLanes(sample, IN_FLIGHT, async (position) => {
        const spec = set.at(position)!;
        if (!(await this.head(spec)).good) missing.push(spec.blob);
      });
      if (!missing.length) {
        this.state.reused += set.length;
        log.info(
          `fixtures: ${set.prefix} is marked complete (${shownUrl(marker)}), ` +
            `and ${sample.length} of its ${set.length} files asked for are there`,
        );
        return;
      }
      log.warn(
        `fixtures: ${set.prefix} is marked complete, but ${missing[0]} is missing or of another size: ` +
          'asking for every file',
      );
    }
    await inLanes(set, IN_FLIGHT, (spec) => this.ensure(spec));
    if (this.opts.signal?.aborted) return;
    // The marker is a shortcut, not a requirement: a server that refuses it is asked for every file next
    // time.
    const r = await this.put(marker, Buffer.from(markerText(set)));
    if (r.error)
      log.verbose(
        `fixtures: the marker ${shownUrl(marker)} could not be written (${r.error}); ` +
          'the next session asks for every file again',
      );
    else this.state.created.push(`${set.prefix}/${SET_MARKER}`);
  }
}

/** Whether a set's marker is there and vouches for exactly this set. */
async function markedComplete(
  client: NodeHttpClient,
  signer: RequestSigner,
  url: URL,
  set: SetFixtures,
  timeoutMs: number,
): Promise<boolean> {
  const chunks: Buffer[] = [];
  const r = await client.request({
    url,
    method: 'GET',
    headers: signer.headers('GET', url),
    timeoutMs,
    trace: false,
    expectStatus: [200],
    onData: (c) => void chunks.push(Buffer.from(c)),
  });
  return !r.error && Buffer.concat(chunks).toString('utf8') === markerText(set);
}

/** --cleanup: DELETE the files this run PUT; a refusal is a warning, not a failure. */
export async function removeUrlFixtures(
  info: PlainUrlInfo,
  names: readonly string[],
  timeoutMs: number,
): Promise<void> {
  const signer = new RequestSigner({ ...info, folder: true });
  const client = NodeHttpClient.to(new URL(info.url), IN_FLIGHT);
  const failed: string[] = [];
  try {
    await inLanes(names, IN_FLIGHT, async (name) => {
      const url = signer.blobUrl(name);
      const r = await client.request({
        url,
        method: 'DELETE',
        headers: signer.headers('DELETE', url),
        timeoutMs,
        trace: false,
      });
      if (r.error && r.status !== 404) failed.push(r.error);
    });
    if (failed.length)
      log.warn(
        `cleanup: ${failed.length} of ${names.length} file(s) could not be deleted ` +
          `below ${shownUrl(info.url)}: ${failed[0]}`,
      );
  } finally {
    client.close();
  }
}

/** Fixtures below a plain URL, a folder of paths. */
export const URL_FIXTURES: FixtureWriter<PlainUrlInfo> = {
  ensure: (info, lists, { timeoutMs, maxRetries, signal }) =>
    ensureUrlFixtures(info, lists, { timeoutMs, maxRetries, signal }),
  remove: removeUrlFixtures,
};
