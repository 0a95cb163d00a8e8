// Runs before anything else is loaded, so that an old Node gets one line instead of a syntax error.
export function nodeIsSupported(): boolean {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= 22) return true;
  process.stderr.write(
    `blob-cacher: Node ${process.versions.node} is too old; it needs Node >= 22. Use the pinned Node 24 through npm: npm run download -- <options>\n`,
  );
  process.exitCode = 1;
  return false;
}
