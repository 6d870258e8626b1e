/**
 * One PostgreSQL client for one piece of test work (creating a database, checking what runs
 * on the server), always closed afterwards.
 */
import pg from 'pg';

/**
 * Connects, runs `work`, disconnects.
 * @example
 * await withPostgres((await postgresUrls()).adminUrl, (client) => client.query('CREATE DATABASE scratch'));
 */
export async function withPostgres<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
