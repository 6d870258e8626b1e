import { loadConfig } from './src/config/config.ts';
import { silentLogger } from './src/logging/logger.ts';
import { createService } from './src/service.ts';
import supertest from 'supertest';
const service = await createService(loadConfig({ LOG_LEVEL: 'silent' } as any), silentLogger());
const questions = process.argv.slice(2);
let session: string | undefined;
for (const q of questions) {
  const follow = q.startsWith('+');
  const r = await supertest(service.app).post('/chat').send({ message: follow ? q.slice(1) : q, ...(follow && session ? { session_id: session } : {}) });
  session = r.body.session_id;
  console.log('Q:', q, '\n', r.status, r.body.tool_calls?.map((c: any) => `${c.name} ${JSON.stringify(c.args)}`).join('\n '), '\nA:', r.body.answer ?? JSON.stringify(r.body), '\n');
}
service.close();
