/**
 * GET /health (liveness plus what is running: model, data, skills) and GET /openapi.yaml.
 */
import path from 'node:path';
import { Router } from 'express';
import type { AppServices } from '../app.ts';

export function healthRoutes(services: AppServices): Router {
  const router = Router();
  router.get('/health', (_request, response) => {
    response.json({
      status: 'ok',
      version: services.version,
      uptime_seconds: Math.round((Date.now() - services.startedAt) / 1000),
      model: services.modelDescription,
      data: { database: path.basename(services.dataDatabasePath), sources: services.catalog.sources.size, queries: services.queries.stats() },
      skills: services.registry.skills.map((skill) => skill.name),
    });
  });
  router.get('/openapi.yaml', (_request, response) => {
    response.type('application/yaml').sendFile(services.openApiPath);
  });
  return router;
}
