// The layer rules of ARCHITECTURE.md as code (`npm run lint:deps`, part of `npm test`): no import
// cycle in src/, type-only imports included, and no layer importing one above it.
// swc parses the sources: TypeScript 7 has no compiler API for dependency-cruiser to use yet (it
// warns "missing-tsc-transpiler"; swc reads .ts, `import type` included, so nothing is missed).

/**
 * Layers, top to bottom: each may import only the layers below it (and itself). A layer is a folder;
 * the vocabulary every layer names is three: plan/ (items, file names, workloads), payload/ (the
 * seed's content, scratch directories, the MD5 of small inputs) and vocabulary/ (errors, sizes,
 * durations, closed choices, credentials). fixture-setup/ (the blobs made before any run) writes
 * through storage and reads the strategies' fixture sets, so it sits above both. startup/ (builtins
 * required on first use, what a process does at its first lines) is the bottom: every layer may load
 * through it.
 */
const LAYERS = [
  ['cli', '^src/(cli/|[^/]+$)'],
  ['report', '^src/report/'],
  ['engine', '^src/engine/'],
  ['scaleout', '^src/scaleout/'],
  ['tune', '^src/tune/'],
  ['analysis', '^src/analysis/'],
  ['workers', '^src/workers/'],
  ['config', '^src/config/'],
  ['fixture-setup', '^src/fixture-setup/'],
  ['strategies', '^src/strategies/'],
  ['kinds', '^src/kinds/'],
  ['hedge', '^src/hedge/'],
  ['verify', '^src/verify/'],
  ['sinks', '^src/sinks/'],
  ['kept', '^src/kept/'],
  ['storage', '^src/storage/'],
  ['results', '^src/results/'],
  ['metrics', '^src/metrics/'],
  ['transport', '^src/transport/'],
  ['emulate', '^src/emulate/'],
  ['log', '^src/log/'],
  ['vocabulary', '^src/(plan|payload|vocabulary)/'],
  ['startup', '^src/startup/'],
];

const layerRules = LAYERS.slice(1).map(([name, path], i) => ({
  name: `layer-${name}`,
  comment: `${name} is below ${LAYERS.slice(0, i + 1).map(([n]) => n).join(', ')}: it imports none of them (ARCHITECTURE.md)`,
  severity: 'error',
  from: { path },
  to: { path: LAYERS.slice(0, i + 1).map(([, p]) => `(${p})`).join('|') },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle, even of types only, means two modules are one job or a layer is upside down.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-unlayered',
      comment: 'Every file of src/ is in one of the layers above: a new folder gets its place in LAYERS.',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERS.map(([, p]) => `(${p})`).join('|') },
      to: {},
    },
    {
      name: 'no-esm-node-http',
      comment: 'node:http, node:https, node:tls and node:crypto come from startup/lazy.ts (require, when first used): an ESM import of node:http evaluates its lazy exports and loads undici, ~25 ms of every start, one of node:crypto its ~17 internal modules (4-6 ms); a bundle hoists it even from a lazily imported module.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/startup/lazy\\.ts$' },
      to: { path: '^(node:)?(https?|tls|crypto)$', dependencyTypesNot: ['type-only'] },
    },
    ...layerRules,
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
