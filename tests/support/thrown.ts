import type { AppError } from '../../lib/errors';

/** The AppError `fn` throws; fails the test when it throws nothing. */
export function thrownBy(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    return err as AppError;
  }
  throw new Error('expected an error');
}
