// PostGraphile 5 for the benchmark: the Amber preset over supportdesk's tables, read-only
// use (the bench sends it queries only). Copied next to node_modules in bench/.tools/ and
// loaded by each worker of graphile.cluster.mjs, which bench/servers.py starts with
// BENCH_PG_URL, BENCH_PORT, BENCH_POOL_SIZE and BENCH_WORKERS set.
import { PostGraphileAmberPreset } from "postgraphile/presets/amber";
import { makePgService } from "postgraphile/adaptors/pg";

/** @type {GraphileConfig.Preset} */
const preset = {
  extends: [PostGraphileAmberPreset],
  pgServices: [
    makePgService({
      connectionString: process.env.BENCH_PG_URL,
      schemas: ["public"],
      poolConfig: { max: Number(process.env.BENCH_POOL_SIZE ?? 10) },
    }),
  ],
  grafserv: {
    host: "127.0.0.1",
    port: Number(process.env.BENCH_PORT ?? 5678),
    graphiql: false,
    watch: false,
  },
  grafast: { explain: false },
};

export default preset;
