/**
 * PostgreSQL settings of the embedded database, on top of PGlite's own start parameters. Its default 128 MB of shared
 * buffers was the largest part of an idle embedded server (every page of them is touched at start); one host's day of
 * series fits in 16 MB, and the operating system's page cache holds the rest. On the command line, because PGlite's
 * `postgresqlconf` option replaces the whole postgresql.conf that initdb wrote.
 */
export const EMBEDDED_START_PARAMS: readonly string[] = ['-c', 'shared_buffers=16MB'];
