/**
 * The shape of one environment's configuration (interface §11). Objects are strict so a typo in a
 * TOML file (`rate_limit_request`) is an error naming the key instead of a silently ignored line.
 */
import { z } from 'zod'

const positiveInt = z.number().int().positive()
const nonNegativeInt = z.number().int().nonnegative()

/** kinds of chain (engine/chains/rules.ts): the rules their transactions run by */
export const chainKinds = ['ethereum', 'op-stack', 'arbitrum'] as const
/** a chain's name: its route segment (/v1/chains/{name}/) and, `-` as `_` upper-cased, its variables */
export const CHAIN_NAME = /^[a-z0-9-]+$/

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

export const configSchema = z.strictObject({
  server: z.strictObject({
    host: z.string().min(1),
    port: z.number().int().min(0).max(65535),
    /** trusted reverse-proxy hops; 0 = the socket address is the client */
    trust_proxy: nonNegativeInt,
    max_body_bytes: positiveInt,
    request_timeout_ms: positiveInt,
    /** on SIGTERM/SIGINT, how long the requests in flight may run on before the process exits non-zero cutting them */
    shutdown_grace_ms: positiveInt.default(25_000),
    /** 0 = one engine per usable core */
    workers: nonNegativeInt,
    /** HTTP processes sharing the port, each with its own engine(s); 0 = one per usable core */
    processes: nonNegativeInt,
  }),
  api: z.strictObject({
    /** empty = authentication disabled */
    auth_token: z.string(),
    /** requests per client IP per window on every counted route but a fork's JSON-RPC endpoint */
    rate_limit_requests: positiveInt,
    rate_limit_duration: positiveInt,
    /** requests per client IP per window on a fork's JSON-RPC endpoint, counted apart (docs/forks.md) */
    fork_rpc_rate_limit_requests: positiveInt,
    fork_rpc_rate_limit_duration: positiveInt,
    cors: z.strictObject({
      allowed_origins: z.array(z.string().min(1)),
      allowed_methods: z.array(z.string().min(1)),
      allowed_headers: z.array(z.string().min(1)),
      allow_credentials: z.boolean(),
      max_age: nonNegativeInt,
    }),
  }),
  chain: z.strictObject({
    /** empty = the embedded devnet */
    rpc_url: z.string(),
    /** empty = the engine's default */
    hardfork: z.string(),
    rpc_timeout_ms: positiveInt,
    /** how long the newest head seen stands for `latest`; 0 = resolve on every request */
    head_max_age_ms: nonNegativeInt,
    gas_cap: positiveInt,
    /** optional: the upstream's chain id, checked at start */
    chain_id: positiveInt.optional(),
    /** optional: ethereum | op-stack | arbitrum; absent = by the chain id (docs/chains.md) */
    kind: z.enum(chainKinds).optional(),
  }),
  /**
   * More chains served by the same deployment, each under /v1/chains/{name}/ (docs/chains.md);
   * `chain` above stays the default one, served by the unprefixed routes.
   */
  chains: z
    .record(
      z.string().regex(CHAIN_NAME, 'a chain name is lower-case letters, digits and -'),
      z.strictObject({
        /** absent: an embedded devnet of the chain's kind (docs/chains.md) */
        rpc_url: z.string().min(1, "rpc_url, when given, is the upstream's URL (leave it out for an embedded devnet)").optional(),
        chain_id: positiveInt.optional(),
        hardfork: z.string().optional(),
        kind: z.enum(chainKinds).optional(),
      }),
    )
    .default({}),
  cache: z.strictObject({
    url: z.string().min(1),
    simulation_ttl_seconds: positiveInt,
    /** all in-process caches of the instance together, MiB (host/cache/memoryBudget.ts) */
    max_memory_mb: positiveInt,
  }),
  limits: z.strictObject({
    max_batch_size: positiveInt,
    max_calls_per_simulation: positiveInt,
    max_struct_log_steps: positiveInt,
    /** the largest struct log one answer streams, MiB: the disk its temporary file may take */
    max_struct_log_mb: positiveInt,
    /** requests in one JSON-RPC batch (geth allows 1000) */
    max_rpc_batch: positiveInt,
  }),
  log: z.strictObject({
    level: z.enum(logLevels),
  }),
  /** writable forks (docs/forks.md) */
  forks: z.strictObject({
    /** live forks at once, per cache store */
    max_forks: positiveInt,
    /** a fork unused this long is gone; each use moves its expiry forward by its TTL */
    default_ttl_seconds: positiveInt,
    /** blocks one fork may mine */
    max_blocks: positiveInt,
    /** what one fork may store (its blocks, receipts and state changes), MiB */
    max_state_mb: positiveInt,
  }),
  /** contracts' sources for traces (interface §13) */
  sources: z
    .strictObject({
      /** the registered build-info of a cache store together, and so the largest body of POST /v1/sources, MiB */
      max_mb: positiveInt.default(64),
      /** a Sourcify-compatible service (APIv2) asked for verified sources by address; empty: off */
      sourcify_url: z.string().default(''),
    })
    .default({ max_mb: 64, sourcify_url: '' }),
})

export type AppEnv = 'development' | 'production' | 'test'
export const appEnvs: readonly AppEnv[] = ['development', 'production', 'test']

export type ServiceConfig = z.infer<typeof configSchema> & { env: AppEnv }
