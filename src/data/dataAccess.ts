/**
 * The data layer's interface to skills: plans in, bounded results out. Asynchronous because
 * the work runs in query worker processes (see queryPool.ts), off the HTTP event loop.
 */
import { ToolError } from '../errors/index.ts';
import type { AggregatePlan, AggregateResult } from './aggregate.ts';
import type { DataDatabase } from './database.ts';
import type { BlankValuesOutcome, BlankValuesPlan, DuplicateOutcome, DuplicatePlan, PeriodTotalsOutcome, PeriodTotalsPlan } from './dataQuality.ts';
import { operations, type OperationInput, type OperationName, type OperationResult } from './operations.ts';
import type { ComparisonOutcome, ComparisonPlan } from './reconciliation.ts';

export interface DataAccess {
  aggregate(plan: AggregatePlan, signal?: AbortSignal): Promise<AggregateResult>;
  compare(plan: ComparisonPlan, signal?: AbortSignal): Promise<ComparisonOutcome>;
  valueExists(table: string, column: string, value: string | null, signal?: AbortSignal): Promise<boolean>;
  distinctValues(table: string, column: string, limit: number, signal?: AbortSignal): Promise<(string | null)[]>;
  /** Keys that occur more than once (data quality). */
  findDuplicates(plan: DuplicatePlan, signal?: AbortSignal): Promise<DuplicateOutcome>;
  /** NULL, empty and placeholder values per dimension (data quality). */
  findBlankValues(plan: BlankValuesPlan, signal?: AbortSignal): Promise<BlankValuesOutcome>;
  /** A measure's totals per series and period (data quality: outlier periods). */
  periodTotals(plan: PeriodTotalsPlan, signal?: AbortSignal): Promise<PeriodTotalsOutcome>;
  close(): Promise<void>;
}

/**
 * Runs every operation on the given connection in this process. For tests and command-line
 * tools; the service uses the worker pool so that queries can be timed out.
 */
export function createDataAccess(database: DataDatabase): DataAccess {
  const run = <Name extends OperationName>(operation: Name, input: OperationInput<Name>): Promise<OperationResult<Name>> => {
    try {
      return Promise.resolve((operations[operation] as (db: DataDatabase, input: unknown) => OperationResult<Name>)(database, input));
    } catch (error) {
      return Promise.reject(ToolError.isInstance(error) ? error : queryFailure(error));
    }
  };
  return {
    aggregate: (plan) => run('aggregate', plan),
    compare: (plan) => run('compare', plan),
    valueExists: (table, column, value) => run('valueExists', { table, column, value }),
    distinctValues: (table, column, limit) => run('distinctValues', { table, column, limit }),
    findDuplicates: (plan) => run('findDuplicates', plan),
    findBlankValues: (plan) => run('findBlankValues', plan),
    periodTotals: (plan) => run('periodTotals', plan),
    close: async () => {
      database.close();
    },
  };
}

/** SQLite errors become a recoverable tool error with the database's message and no stack. */
export function queryFailure(error: unknown): ToolError {
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError('query_failed', `The database could not run the query: ${message}`, {
    hint: 'Check the source, measure and filter names against the catalog of sources, or narrow the question.',
  });
}
