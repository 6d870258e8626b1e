/**
 * The data_quality skill: checks one source for duplicated records (e.g. a delta load loaded
 * twice), blank or placeholder dimension values, and periods whose totals deviate sharply.
 */
import { defineSkill } from '../../src/skills/api.ts';
import { questions } from './questions.ts';
import { findBlankValues } from './findBlankValues.ts';
import { findDuplicates } from './findDuplicates.ts';
import { findOutlierPeriods } from './findOutlierPeriods.ts';

export default defineSkill({
  tools: [findDuplicates, findBlankValues, findOutlierPeriods],
  questions,
});
