/** The offline planner's name, as /health and `modelDescription` show it (kept apart so describing the model loads nothing). */
export const OFFLINE_MODEL_NAME = 'offline-planner';
