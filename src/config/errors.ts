// Errors are values until the edge: the CLI turns an ExitError into one line and its exit code.
/** An error the CLI ends with on one line and this exit code, without a stack trace. */
export class ExitError extends Error {
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Bad input: exit code 2. */
export class ConfigError extends ExitError {
  constructor(message: string) {
    super(2, message);
    this.name = 'ConfigError';
  }
}
