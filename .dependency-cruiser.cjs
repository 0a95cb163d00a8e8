// The layer rules of ARCHITECTURE.md as code (`npm run lint:deps`, part of `npm test`): no import
// cycle in src/, type-only imports included, and no folder importing one above it.
// swc parses the sources: TypeScript 7 has no compiler API for dependency-cruiser to use yet (it
// warns "missing-tsc-transpiler"; swc reads .ts, `import type` included, so nothing is missed).
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A cycle, even of types only, means two modules are one job or a layer is upside down.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
