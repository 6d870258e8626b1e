/**
 * The JSON body of a request the contract (contract.ts, openapi.yaml) has already validated.
 * Routes do not validate bodies again: every limit lives in openapi.yaml. What is left here is
 * the media type, which the contract does not judge (it only validates JSON bodies).
 */
import type { Request, Response } from 'express';
import { sendProblem } from './problem.ts';

/**
 * The body as `Body` (the type of the operation's request schema in openapi.yaml), or undefined
 * after sending a 415 problem when the request does not carry JSON.
 * @example
 * const body = jsonBody<{ message: string }>(request, response);
 * if (!body) return;
 */
export function jsonBody<Body>(request: Request, response: Response): Body | undefined {
  if (!request.is('application/json')) {
    sendProblem(response, 'unsupportedMediaType', "Send a JSON body with 'Content-Type: application/json'.");
    return undefined;
  }
  return request.body as Body;
}
