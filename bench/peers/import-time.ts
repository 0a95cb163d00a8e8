// Imports each module named on the command line in turn, in this fresh process, and prints one JSON
// line: the milliseconds each import took (so each after the previous ones: marginal costs, which
// add up to the whole). A path is a file of the build; `require:` loads a CommonJS path with require.
//   node bench/peers/import-time.ts <specifier|/abs/path.js|require:spec> …
import { createRequire } from 'node:module';
import { isAbsolute } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const ms: number[] = [];
for (const spec of process.argv.slice(2)) {
  const t0 = performance.now();
  if (spec.startsWith('require:')) require(spec.slice('require:'.length));
  else await import(isAbsolute(spec) ? pathToFileURL(spec).href : spec);
  ms.push(performance.now() - t0);
}
process.stdout.write(`${JSON.stringify(ms)}\n`);
