/**
 * Base of the service's error hierarchy. Every error we raise on purpose extends it,
 * so the HTTP layer can tell a deliberate, well-described failure from a bug.
 */
const marker = Symbol.for('analyst.error');

/** Any failure the service raises deliberately, with a message fit for a user. */
export class AnalystError extends Error {
  readonly [marker] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }

  static isInstance(error: unknown): error is AnalystError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
