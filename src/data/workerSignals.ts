/**
 * A query worker's first import: it ignores SIGINT and SIGTERM from here on, before the engines'
 * modules load (most of a start). Ctrl-C in a terminal and systemd's stop signal every process
 * of the service, workers included; the service's graceful shutdown lets queries in flight
 * finish and then stops its workers itself. A worker that ended at the signal would fail those
 * queries, and the pool would start replacements mid-shutdown. A pool that is gone closes the
 * worker's channel, or kills it as its process exits (workerProcess.ts).
 */
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => undefined);
