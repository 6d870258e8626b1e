/**
 * Zod pieces of tool output schemas that several skills share, so a result field that means the
 * same thing is described the same way in every skill's output schema (GET /skills publishes
 * them). Skills import from src/skills/, never from one another, so shared pieces live here.
 */
import { z } from 'zod';

/**
 * A measure as a result names it: its logical name and its unit or currency ("EUR", "rows").
 * @example
 * const output = z.object({ source: z.string(), measure: measureReference });
 * output.parse({ source: 'fi_reporting', measure: { name: 'amount', unit: 'EUR' } });
 */
export const measureReference = z.object({ name: z.string(), unit: z.string() });
