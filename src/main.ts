/**
 * The service's entry point: configuration → logger → the instance (host/instance.ts: processes,
 * engine threads, cache store, HTTP server, graceful stop) serving the HTTP app (app.ts). A
 * configuration error (e.g. production without an auth token) is one line on stderr and exit
 * code 1.
 *
 * With `server.processes` above 1 this file runs as the cluster's primary (host/cluster/primary.ts),
 * which forks the HTTP processes; each of them runs this file again and serves.
 */
import { ConfigError, loadConfig, type ServiceConfig } from '../config/loadConfig.js'
import { runInstance } from '../host/instance.js'
import { createApp } from './app.js'
import { createLogger } from './logger.js'

function configOrExit(): ServiceConfig {
  try {
    return loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`evm-sim-service: ${err.message}\n`)
      process.exit(1)
    }
    throw err
  }
}

/** secrets of the running config, for the last-resort error line */
let secrets: string[] = []

async function main(): Promise<void> {
  const config = configOrExit()
  // every chain's upstream URL may hold an API key
  const urls = [config.chain.rpc_url, ...Object.values(config.chains).flatMap((c) => (c.rpc_url ? [c.rpc_url] : []))]
  secrets = [...urls, config.api.auth_token].filter((s) => s.length >= 4)
  const logger = createLogger({ level: config.log.level, secrets: [...urls, config.api.auth_token] })
  await runInstance({ config, logger, app: (parts) => createApp({ config, ...parts }) })
}

main().catch((err: unknown) => {
  // start-up failed (engine could not start, port taken, ...): one line, no stack with secrets
  const message = err instanceof Error ? err.message : String(err)
  process.stderr.write(`evm-sim-service: failed to start: ${secrets.reduce((m, s) => m.split(s).join('[redacted]'), message)}\n`)
  process.exit(1)
})
