// Errors are values until the edge: the CLI turns a ConfigError into one line and exit code 2.
export class ConfigError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}
