/**
 * Loads `config/<APP_ENV>.toml`, applies environment overrides, validates the result.
 * Every failure is a `ConfigError` whose one-line message names the bad key and where it came
 * from (file or variable), and never echoes a value (values may be secrets).
 *
 * @example
 * const config = loadConfig()                       // APP_ENV from process.env, default development
 * const config = loadConfig({ env: { APP_ENV: 'test', PORT: '0' } })
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse as parseToml } from 'smol-toml'
import type { z } from 'zod'
import { appEnvs, configSchema, type AppEnv, type ServiceConfig } from './configSchema.js'
import { chainEnvOverrides, envOverrides, parseEnvValue } from './envOverrides.js'
import { projectRoot } from './projectRoot.js'

export type { AppEnv, ServiceConfig } from './configSchema.js'

export class ConfigError extends Error {
  override readonly name = 'ConfigError'
}

export interface LoadConfigOptions {
  /** environment to read overrides from (default process.env) */
  env?: Record<string, string | undefined>
  /** folder of the TOML files (default `<project root>/config`) */
  configDir?: string
}

export function loadConfig(opts: LoadConfigOptions = {}): ServiceConfig {
  const env = opts.env ?? process.env
  const appEnv = resolveAppEnv(env.APP_ENV)
  const file = join(opts.configDir ?? join(projectRoot(), 'config'), `${appEnv}.toml`)

  let raw: Record<string, unknown>
  try {
    raw = parseToml(readFileSync(file, 'utf8')) as Record<string, unknown>
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : firstLine((e as Error).message)
    throw new ConfigError(`config ${appEnv}.toml: ${why}`)
  }

  const sources = new Map<string, string>()
  for (const o of envOverrides) {
    const value = env[o.name]
    if (value === undefined) continue
    const parsed = parseEnvValue(value, o.kind)
    if ('error' in parsed) throw new ConfigError(`config ${o.key} (from ${o.name}): ${parsed.error}`)
    setPath(raw, o.key, parsed.value)
    sources.set(o.key, o.name)
  }
  for (const o of chainEnvOverrides(env)) {
    const parsed = parseEnvValue(o.value, o.kind)
    if ('error' in parsed) throw new ConfigError(`config ${o.key} (from ${o.name}): ${parsed.error}`)
    setChainField(raw, o.key, parsed.value)
    sources.set(o.key, o.name)
  }

  const result = configSchema.safeParse(raw)
  if (!result.success) {
    // a typo yields "unknown key" and "missing key" at once: the unknown one names the culprit
    const issues = result.error.issues
    const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!
    throw new ConfigError(describeIssue(issue, appEnv, sources))
  }
  const config: ServiceConfig = { ...result.data, env: appEnv }

  if (appEnv === 'production' && config.api.auth_token.trim() === '') {
    throw new ConfigError('production requires api.auth_token: set AUTH_TOKEN (refusing to start without authentication)')
  }
  return config
}

function resolveAppEnv(value: string | undefined): AppEnv {
  const name = (value ?? '').trim() || 'development'
  if (!(appEnvs as readonly string[]).includes(name)) {
    throw new ConfigError(`config APP_ENV: "${name}" is not one of ${appEnvs.join(', ')}`)
  }
  return name as AppEnv
}

function describeIssue(issue: z.core.$ZodIssue, appEnv: AppEnv, sources: Map<string, string>): string {
  let path = issue.path.map(String)
  let message = issue.message
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0]!]
    message = 'unknown key'
  }
  // a record key refused (a chain's name): its own message says why
  if (issue.code === 'invalid_key' && issue.issues[0]) message = issue.issues[0].message
  if (issue.code === 'invalid_type' && /received undefined/.test(message)) message = `missing key (${message.replace(/^Invalid input: /, '')})`
  const key = path.join('.')
  const origin = sources.get(key) ? `from ${sources.get(key)}` : `in ${appEnv}.toml`
  return `config ${key} (${origin}): ${message}`
}

/** chains.<name>.<field>: the name may hold dots in no case (CHAIN_NAME), but is one key */
function setChainField(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const [, name, field] = dotted.split('.') as [string, string, string]
  const chains = (typeof target.chains === 'object' && target.chains !== null ? target.chains : (target.chains = {})) as Record<string, Record<string, unknown>>
  chains[name] = { ...(chains[name] ?? {}), [field]: value }
}

function setPath(target: Record<string, unknown>, dotted: string, value: unknown): void {
  const parts = dotted.split('.')
  let node = target
  for (const part of parts.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {}
    node = node[part] as Record<string, unknown>
  }
  node[parts[parts.length - 1]!] = value
}

const firstLine = (s: string) => s.split('\n')[0] ?? s
