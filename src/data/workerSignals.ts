/**
 * The first import of a query worker's module: it ignores SIGINT and SIGTERM from here on, before
 * the engines' packages load (most of a start; they are imported when a connection opens). Ctrl-C in a terminal and systemd's stop signal every process
 * of the service, workers included; the service's graceful shutdown lets queries in flight
 * finish and then stops its workers itself. A worker that ended at the signal would fail those
 * queries, and the pool would start replacements mid-shutdown. A pool that is gone kills it as its
 * process exits (workerProcess.ts), or closes its channel, which the worker notices once a
 * running SQLite statement has returned.
 */
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
