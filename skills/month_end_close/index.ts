/**
 * The month_end_close skill: reconciliation checks saved once and re-run every month, with
 * their history, open differences carried forward, sign-off, and a notification when one
 * breaks or recovers. Built on the core's generic pieces: the skill's records, a declared
 * schedule, tools calling tools (compare_sources), the notification outbox, and a page: the
 * close board (web/checks.html at /app/checks), which calls these tools over HTTP.
 */
import { defineSkill } from '../../src/skills/api.ts';
import { questions } from './questions.ts';
import { runDueChecks } from './schedule.ts';
import { checkHistory, deleteCheck, listChecks, runCheckTool, saveCheck, signOffRun } from './tools.ts';

export default defineSkill({
  tools: [saveCheck, listChecks, runCheckTool, checkHistory, signOffRun, deleteCheck],
  schedules: [runDueChecks],
  questions,
  // Dashboards frame the board beside their own figures, like /embed.
  pages: [{ name: 'checks', title: 'Close board', framable: true }],
});
