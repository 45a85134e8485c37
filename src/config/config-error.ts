/** A setting that stops start-up; the message is one line naming the variable and the expected form. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly variable: string,
    readonly expected: string,
  ) {
    super(`${variable}: ${expected}`);
  }
}
