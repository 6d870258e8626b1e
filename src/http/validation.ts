/**
 * Request-body validation with zod, answering 400 with each problem and its path.
 */
import type { Request, Response } from 'express';
import type { z } from 'zod';
import { sendProblem } from './problem.ts';

/** Parses the JSON body or sends a problem response and returns undefined. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, request: Request, response: Response): z.infer<Schema> | undefined {
  if (!request.is('application/json')) {
    sendProblem(response, 'unsupportedMediaType', "Send a JSON body with 'Content-Type: application/json'.");
    return undefined;
  }
  const parsed = schema.safeParse(request.body);
  if (parsed.success) return parsed.data;
  const errors = parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.') || '(body)', message: issue.message }));
  sendProblem(response, 'invalidRequest', errors.map((e) => `${e.path}: ${e.message}`).join('; '), { errors });
  return undefined;
}
