/**
 * Deterministic generator of the bundled sample database (SAP BW finance
 * reporting, fiscal year 2024). See data/README.md for the resulting data
 * and the ground truth of the planted discrepancies.
 *
 * All amounts are computed as integer cents, so every aggregate the
 * generator derives (consolidation, BPC, year-to-date, group currency) is
 * exact; they are divided by 100 only when written to SQLite.
 *
 * Modules: model.ts (master data, plan figures, the planted cases), plan.ts
 * (cell totals), fi.ts (FI lines), aggregates.ts (mart and BPC),
 * sampleModel.ts (all rows), schema.ts (tables and indexes, shared with
 * data/scale), database.ts (SQLite writing).
 */
export { buildSampleDatabase, isCurrentSampleDatabase, type BuildResult } from './database.ts';
export { generateSampleModel } from './sampleModel.ts';
export { translateCents } from './plan.ts';
export { TABLE_NAMES, type TableName } from './schema.ts';
export type { BpcRow, FiLine, FxRow, MartRow, SampleModel } from './types.ts';
