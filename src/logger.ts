/**
 * The service's pino logger: JSON lines, with every configured secret (auth token, RPC URL,
 * which may carry an API key) scrubbed from whatever is logged, whoever logs it.
 *
 * @example
 * const logger = createLogger({ level: 'info', secrets: [config.chain.rpc_url, config.api.auth_token] })
 */
import { pino, type Logger } from 'pino'

export interface CreateLoggerOptions {
  level: string
  secrets: string[]
  /** default stdout */
  destination?: pino.DestinationStream
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  const secrets = opts.secrets.filter((s) => s.length >= 4)
  const scrub = (value: unknown): unknown => {
    if (secrets.length === 0) return value
    const text = typeof value === 'string' ? value : JSON.stringify(value)
    if (text === undefined || !secrets.some((s) => text.includes(s))) return value
    let out = text
    for (const s of secrets) out = out.split(s).join('[redacted]')
    return typeof value === 'string' ? out : (JSON.parse(out) as unknown)
  }
  return pino(
    {
      level: opts.level,
      base: { service: 'evm-sim-service' },
      redact: { paths: ['req.headers.authorization', 'req.headers["x-api-key"]', 'headers.authorization', 'headers["x-api-key"]'], censor: '[redacted]' },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map(scrub) as Parameters<typeof method>)
        },
      },
    },
    opts.destination ?? pino.destination({ sync: false }),
  )
}
