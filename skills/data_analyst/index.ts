/**
 * The data_analyst skill: explore the catalog's sources, aggregate their measures and
 * reconcile two sources (or two versions of one). Copy this folder to start a new skill.
 */
import { defineSkill } from '../../src/skills/api.ts';
import { questions } from './questions.ts';
import { compareSources } from './compareSources.ts';
import { explainDifference } from './explainDifference.ts';
import { listDifferences } from './listDifferences.ts';
import { listSources } from './listSources.ts';
import { querySource } from './querySource.ts';

export default defineSkill({
  tools: [listSources, querySource, compareSources, listDifferences, explainDifference],
  questions,
});
