/**
 * Everything the data layer can run, by name, on a read-only connection. The same table
 * serves in-process execution and the query worker processes, so both behave identically.
 */
import { distinctValues, runAggregate, valueExists, type AggregatePlan } from './aggregate.ts';
import type { DataDatabase } from './database.ts';
import { runFindBlankValues, runFindDuplicates, runPeriodTotals, type BlankValuesPlan, type DuplicatePlan, type PeriodTotalsPlan } from './dataQuality.ts';
import { runComparison, type ComparisonPlan } from './reconciliation.ts';

export const operations = {
  aggregate: (database: DataDatabase, plan: AggregatePlan) => runAggregate(database, plan),
  compare: (database: DataDatabase, plan: ComparisonPlan) => runComparison(database, plan),
  valueExists: (database: DataDatabase, input: { table: string; column: string; value: string | null }) =>
    valueExists(database, input.table, input.column, input.value),
  distinctValues: (database: DataDatabase, input: { table: string; column: string; limit: number }) =>
    distinctValues(database, input.table, input.column, input.limit),
  findDuplicates: (database: DataDatabase, plan: DuplicatePlan) => runFindDuplicates(database, plan),
  findBlankValues: (database: DataDatabase, plan: BlankValuesPlan) => runFindBlankValues(database, plan),
  periodTotals: (database: DataDatabase, plan: PeriodTotalsPlan) => runPeriodTotals(database, plan),
};

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OperationInput<Name extends OperationName> = Parameters<Operations[Name]>[1];
export type OperationResult<Name extends OperationName> = ReturnType<Operations[Name]>;
