/**
 * Environment variables that override configuration keys (interface §11: every key can be
 * overridden, so secrets never need to sit in a file). The first ten names are fixed by the
 * interface; the rest follow the same pattern (the key's name in upper case).
 */
export type EnvKind = 'string' | 'int' | 'bool' | 'list'

export interface EnvOverride {
  name: string
  /** dotted key path in the config, e.g. `api.cors.max_age` */
  key: string
  kind: EnvKind
}

export const envOverrides: readonly EnvOverride[] = [
  // fixed names (interface §11)
  { name: 'HOST', key: 'server.host', kind: 'string' },
  { name: 'PORT', key: 'server.port', kind: 'int' },
  { name: 'RPC_URL', key: 'chain.rpc_url', kind: 'string' },
  { name: 'CACHE_URL', key: 'cache.url', kind: 'string' },
  { name: 'AUTH_TOKEN', key: 'api.auth_token', kind: 'string' },
  { name: 'LOG_LEVEL', key: 'log.level', kind: 'string' },
  { name: 'RATE_LIMIT_REQUESTS', key: 'api.rate_limit_requests', kind: 'int' },
  { name: 'RATE_LIMIT_DURATION', key: 'api.rate_limit_duration', kind: 'int' },
  { name: 'WORKERS', key: 'server.workers', kind: 'int' },
  // the remaining keys
  { name: 'PROCESSES', key: 'server.processes', kind: 'int' },
  { name: 'TRUST_PROXY', key: 'server.trust_proxy', kind: 'int' },
  { name: 'MAX_BODY_BYTES', key: 'server.max_body_bytes', kind: 'int' },
  { name: 'REQUEST_TIMEOUT_MS', key: 'server.request_timeout_ms', kind: 'int' },
  { name: 'FORK_RPC_RATE_LIMIT_REQUESTS', key: 'api.fork_rpc_rate_limit_requests', kind: 'int' },
  { name: 'FORK_RPC_RATE_LIMIT_DURATION', key: 'api.fork_rpc_rate_limit_duration', kind: 'int' },
  { name: 'SHUTDOWN_GRACE_MS', key: 'server.shutdown_grace_ms', kind: 'int' },
  { name: 'CORS_ALLOWED_ORIGINS', key: 'api.cors.allowed_origins', kind: 'list' },
  { name: 'CORS_ALLOWED_METHODS', key: 'api.cors.allowed_methods', kind: 'list' },
  { name: 'CORS_ALLOWED_HEADERS', key: 'api.cors.allowed_headers', kind: 'list' },
  { name: 'CORS_ALLOW_CREDENTIALS', key: 'api.cors.allow_credentials', kind: 'bool' },
  { name: 'CORS_MAX_AGE', key: 'api.cors.max_age', kind: 'int' },
  { name: 'HARDFORK', key: 'chain.hardfork', kind: 'string' },
  { name: 'CHAIN_ID', key: 'chain.chain_id', kind: 'int' },
  { name: 'CHAIN_KIND', key: 'chain.kind', kind: 'string' },
  { name: 'RPC_TIMEOUT_MS', key: 'chain.rpc_timeout_ms', kind: 'int' },
  { name: 'HEAD_MAX_AGE_MS', key: 'chain.head_max_age_ms', kind: 'int' },
  { name: 'GAS_CAP', key: 'chain.gas_cap', kind: 'int' },
  { name: 'SIMULATION_TTL_SECONDS', key: 'cache.simulation_ttl_seconds', kind: 'int' },
  { name: 'CACHE_MAX_MEMORY_MB', key: 'cache.max_memory_mb', kind: 'int' },
  { name: 'MAX_BATCH_SIZE', key: 'limits.max_batch_size', kind: 'int' },
  { name: 'MAX_CALLS_PER_SIMULATION', key: 'limits.max_calls_per_simulation', kind: 'int' },
  { name: 'MAX_STRUCT_LOG_STEPS', key: 'limits.max_struct_log_steps', kind: 'int' },
  { name: 'MAX_STRUCT_LOG_MB', key: 'limits.max_struct_log_mb', kind: 'int' },
  { name: 'MAX_RPC_BATCH', key: 'limits.max_rpc_batch', kind: 'int' },
  { name: 'FORKS_MAX_FORKS', key: 'forks.max_forks', kind: 'int' },
  { name: 'FORKS_DEFAULT_TTL_SECONDS', key: 'forks.default_ttl_seconds', kind: 'int' },
  { name: 'FORKS_MAX_BLOCKS', key: 'forks.max_blocks', kind: 'int' },
  { name: 'FORKS_MAX_STATE_MB', key: 'forks.max_state_mb', kind: 'int' },
  { name: 'SOURCES_MAX_MB', key: 'sources.max_mb', kind: 'int' },
  { name: 'SOURCES_SOURCIFY_URL', key: 'sources.sourcify_url', kind: 'string' },
]

/** Parses an environment value; returns an error text when it does not fit the kind. */
export function parseEnvValue(raw: string, kind: EnvKind): { value: unknown } | { error: string } {
  const text = raw.trim()
  switch (kind) {
    case 'string':
      return { value: raw }
    case 'int':
      return /^\d+$/.test(text) ? { value: Number(text) } : { error: 'expected a non-negative integer' }
    case 'bool':
      if (/^(true|1|yes)$/i.test(text)) return { value: true }
      if (/^(false|0|no)$/i.test(text)) return { value: false }
      return { error: 'expected true or false' }
    case 'list':
      return {
        value:
          text === ''
            ? []
            : text
                .split(',')
                .map((s) => s.trim())
                .filter((s) => s !== ''),
      }
  }
}

/** the fields of a `[chains.<name>]` table settable as CHAIN_<NAME>_<FIELD> */
const CHAIN_FIELDS: Record<string, { key: string; kind: EnvKind }> = {
  RPC_URL: { key: 'rpc_url', kind: 'string' },
  CHAIN_ID: { key: 'chain_id', kind: 'int' },
  HARDFORK: { key: 'hardfork', kind: 'string' },
  KIND: { key: 'kind', kind: 'string' },
}
const CHAIN_VARIABLE = new RegExp(`^CHAIN_([A-Z0-9_]+?)_(${Object.keys(CHAIN_FIELDS).join('|')})$`)

/**
 * The CHAIN_<NAME>_<FIELD> variables of `env` as config overrides: `<NAME>` upper-cased with `-`
 * written `_` (CHAIN_BASE_SEPOLIA_RPC_URL sets chains.base-sepolia.rpc_url).
 */
export function chainEnvOverrides(env: Record<string, string | undefined>): (EnvOverride & { value: string })[] {
  const out: (EnvOverride & { value: string })[] = []
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || name === 'CHAIN_ID' || name === 'CHAIN_KIND') continue
    const m = CHAIN_VARIABLE.exec(name)
    if (!m) continue
    const field = CHAIN_FIELDS[m[2]!]!
    out.push({ name, key: `chains.${m[1]!.toLowerCase().replace(/_/g, '-')}.${field.key}`, kind: field.kind, value })
  }
  return out
}
