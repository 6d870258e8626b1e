/**
 * What saved checks cost: 100 checks of the month-end close (FI against its acquisition layer,
 * one company and one month each) on the 1M-row database, run by the scheduler in one pass, as
 * the service runs them (worker pool, records in a SQLite APP_DB). Prints the time to save them
 * (each save runs its check once), the time of the scheduled pass, per check, the records kept
 * and the peak RSS. Run by `npm run bench` (after the cold start) or on its own:
 *
 *   npx tsx bench/closeChecks.ts [--data FILE] [--checks 100]
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import request from 'supertest';
import { loadConfig } from '../src/config/config.ts';
import { silentLogger } from '../src/logging/logger.ts';
import { createService } from '../src/service.ts';
import { temporaryDirectory } from '../src/skills/sdk/testing.ts';

export interface CloseFigures {
  checks: number;
  rows_per_source: number;
  save_ms: number;
  pass_ms: number;
  per_check_ms: number;
  runs_recorded: number;
  peak_rss_mb: number;
}

const COMPANIES = ['1000', '1100', '2000', '2100', '3000', '3100', '4000', '5000', '6000', '7000', '8000', '9000'];

/**
 * Saves `count` checks on `dataFile`, then times one scheduled pass that runs them all.
 * @example
 * const figures = await measureClose('bench/.data/bench-1000000.db', 100);
 */
export async function measureClose(dataFile: string, count: number, rows: number): Promise<CloseFigures> {
  let clock = Date.now();
  const service = await createService(
    loadConfig({ DATA_DB: dataFile, APP_DB: path.join(temporaryDirectory('bench-close-'), 'app.db'), LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', API_KEYS: '' } as NodeJS.ProcessEnv),
    silentLogger(),
    undefined,
    { now: () => clock },
  );
  let peak = process.memoryUsage().rss;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  try {
    await service.scheduler.tick();
    const saveStarted = performance.now();
    for (let index = 0; index < count; index += 1) {
      const company = COMPANIES[index % COMPANIES.length]!;
      const month = String(Math.floor(index / COMPANIES.length) + 1).padStart(2, '0');
      const response = await request(service.app).post('/tools/save_check').send({
        name: `FI vs acquisition ${company} 2024-${month}`,
        comparison: { source_a: 'fi_acquisition', source_b: 'fi_reporting', measure: 'amount', filters: { company } },
        period: { kind: 'fixed', period: `2024-${month}` },
        schedule: { kind: 'daily' },
      });
      if (response.status !== 200) throw new Error(`save_check failed: ${JSON.stringify(response.body).slice(0, 300)}`);
    }
    const saveMs = performance.now() - saveStarted;
    // Every check is due tomorrow morning: one tick runs them all.
    clock += 2 * 86_400_000;
    const passStarted = performance.now();
    await service.scheduler.tick();
    const passMs = performance.now() - passStarted;
    const history = await request(service.app).post('/tools/list_checks').send({});
    const runs = (history.body.result.checks as { last_run: string | null }[]).filter((check) => check.last_run?.includes('T')).length;
    return { checks: count, rows_per_source: rows, save_ms: Math.round(saveMs), pass_ms: Math.round(passMs), per_check_ms: Math.round((passMs / count) * 10) / 10, runs_recorded: runs, peak_rss_mb: Math.round(peak / 1_048_576) };
  } finally {
    clearInterval(sample);
    await service.close();
  }
}

/** One line per figure, for the bench's output. */
export function describeClose(figures: CloseFigures): string {
  return [
    `month-end close: ${figures.checks} checks on ${figures.rows_per_source.toLocaleString('en-US')} rows per source (one company and month each)`,
    `  saving them (each save runs its check once): ${figures.save_ms.toLocaleString('en-US')} ms`,
    `  one scheduled pass running all ${figures.checks}: ${figures.pass_ms.toLocaleString('en-US')} ms, ${figures.per_check_ms} ms per check; ${figures.runs_recorded} runs recorded; peak RSS ${figures.peak_rss_mb} MB`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { data: { type: 'string' }, checks: { type: 'string', default: '100' } } });
  const file = values.data ?? path.resolve('bench/.data/bench-1000000.db');
  console.log(describeClose(await measureClose(file, Number(values.checks), 1_000_000)));
}
