// PostGraphile 5 for the benchmark on as many Node processes as ours runs workers
// (BENCH_WORKERS), so both sides use the same cores: node:cluster forks the workers, which
// share the port as uvicorn's workers share ours. Each worker builds its own schema from
// graphile.config.mjs and opens its own pool of BENCH_POOL_SIZE connections, as each of our
// workers does. Copied with the config next to node_modules in bench/.tools/ and started by
// bench/servers.py; it prints READY once every worker listens.
import cluster from "node:cluster";
import { createServer } from "node:http";
import { postgraphile } from "postgraphile";
import { grafserv } from "postgraphile/grafserv/node";
import preset from "./graphile.config.mjs";

const READY = "postgraphile workers listening";
const workers = Number(process.env.BENCH_WORKERS ?? 1);

if (cluster.isPrimary) {
  let listening = 0;
  cluster.on("listening", () => {
    listening += 1;
    if (listening === workers) {
      console.log(`${READY}: ${workers} on port ${preset.grafserv.port}`);
    }
  });
  cluster.on("exit", (worker, code, signal) => {
    console.error(`worker ${worker.process.pid} exited (${signal ?? code})`);
    process.exit(1);
  });
  for (let index = 0; index < workers; index += 1) {
    cluster.fork();
  }
} else {
  const serv = postgraphile(preset).createServ(grafserv);
  const server = createServer();
  await serv.addTo(server);
  server.listen({ host: preset.grafserv.host, port: preset.grafserv.port });
}
