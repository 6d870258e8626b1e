/**
 * The data layer's interface to skills: plans in, bounded results out. It is asynchronous
 * so the execution can move off the HTTP event loop without changing any skill.
 */
import { ToolError } from '../errors/index.ts';
import { distinctValues, runAggregate, valueExists, type AggregatePlan, type AggregateResult } from './aggregate.ts';
import type { DataDatabase } from './database.ts';
import { runComparison, type ComparisonOutcome, type ComparisonPlan } from './reconciliation.ts';

export interface DataAccess {
  aggregate(plan: AggregatePlan): Promise<AggregateResult>;
  compare(plan: ComparisonPlan): Promise<ComparisonOutcome>;
  valueExists(table: string, column: string, value: string | null): Promise<boolean>;
  distinctValues(table: string, column: string, limit: number): Promise<(string | null)[]>;
  close(): void;
}

/** Runs every plan on the given read-only connection, in this process. */
export function createDataAccess(database: DataDatabase): DataAccess {
  const guarded = <T>(work: () => T): Promise<T> => {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(asQueryFailure(error));
    }
  };
  return {
    aggregate: (plan) => guarded(() => runAggregate(database, plan)),
    compare: (plan) => guarded(() => runComparison(database, plan)),
    valueExists: (table, column, value) => guarded(() => valueExists(database, table, column, value)),
    distinctValues: (table, column, limit) => guarded(() => distinctValues(database, table, column, limit)),
    close: () => database.close(),
  };
}

/** SQLite errors become a recoverable tool error with the database's message and no stack. */
function asQueryFailure(error: unknown): ToolError {
  if (ToolError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ToolError('query_failed', `The database could not run the query: ${message}`, {
    hint: 'Check the source, measure and filter names with list_sources, or narrow the question.',
  });
}
