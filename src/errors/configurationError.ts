/**
 * Raised while starting up: a bad environment variable, catalog or skill folder.
 * The message names the variable or file, where in it, and what is wrong.
 */
import { AnalystError } from './analystError.ts';

const marker = Symbol.for('analyst.error.configuration');

/** Invalid configuration that must stop startup. */
export class ConfigurationError extends AnalystError {
  readonly [marker] = true;

  static override isInstance(error: unknown): error is ConfigurationError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
