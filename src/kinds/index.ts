// The registry of request kinds: a name and how to load it. Loading is lazy, so a worker loads the
// one kind its job names (an SDK kind's imports stay out of workers that run ours). Adding a kind
// is its file and one line here.
import type { RequestKind } from './kind.js';

const KINDS = {
  get: () => import('./get.js'),
  put: () => import('./put.js'),
  list: () => import('./list.js'),
  head: () => import('./head.js'),
  delete: () => import('./delete.js'),
  mix: () => import('./mix.js'),
  'sdk-get': () => import('./sdk-get.js'),
  'sdk-put': () => import('./sdk-put.js'),
  'sdk-small-put': () => import('./sdk-small-put.js'),
  'sdk-list': () => import('./sdk-list.js'),
  'sdk-head': () => import('./sdk-head.js'),
  'sdk-delete': () => import('./sdk-delete.js'),
  'sdk-mix': () => import('./sdk-mix.js'),
} satisfies Record<string, () => Promise<{ kind: RequestKind }>>;

export type KindName = keyof typeof KINDS;

const isKindName = (name: string): name is KindName => Object.hasOwn(KINDS, name);

/** Our own kinds, never the SDK's: what a worker loads while it waits for its first job. */
const OWN: readonly KindName[] = ['get', 'put', 'list', 'head'];

export async function preloadOwnKinds(): Promise<void> {
  await Promise.all(OWN.map((name) => KINDS[name]()));
}

/** The kind named `name`; a name not in the registry is a bug in the plan, said as such. */
export async function loadKind(name: string): Promise<RequestKind> {
  if (!isKindName(name))
    throw new Error(`no request kind named ${name} (known: ${Object.keys(KINDS).join(', ')})`);
  return (await KINDS[name]()).kind;
}
