/**
 * The movement_analysis skill: what drove the change of a measure between two periods
 * (compare_periods) and how it moved period by period (period_trend).
 */
import { defineSkill } from '../../src/skills/api.ts';
import { comparePeriods } from './comparePeriods.ts';
import { periodTrend } from './periodTrend.ts';
import { questions } from './questions.ts';

export default defineSkill({ tools: [comparePeriods, periodTrend], questions });
