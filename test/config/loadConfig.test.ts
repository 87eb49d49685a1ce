import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { createInterface } from 'node:readline'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ConfigError, loadConfig } from '../../config/loadConfig.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

/** a config dir holding test.toml with `edit` applied to the real one */
function configDirWith(edit: (toml: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'cfg-'))
  writeFileSync(join(dir, 'test.toml'), edit(readFileSync(join(root, 'config/test.toml'), 'utf8')))
  return dir
}

describe('loadConfig', () => {
  it('development: the spec values, permissive CORS, no auth, devnet, memory cache', () => {
    const c = loadConfig({ env: {} })
    expect(c.env).toBe('development')
    expect(c.api).toMatchObject({ auth_token: '', rate_limit_requests: 100, rate_limit_duration: 60 })
    // a fork's JSON-RPC endpoint: a test runner's state reads are never refused (docs/decisions/0102-fork-endpoint-rate-limit.md)
    expect(c.api).toMatchObject({ fork_rpc_rate_limit_requests: 100_000, fork_rpc_rate_limit_duration: 60 })
    expect(c.api.cors).toMatchObject({ allowed_origins: ['*'], max_age: 86400 })
    expect(c.api.cors.allowed_methods).toEqual(['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'])
    expect(c.api.cors.allowed_headers).toEqual(expect.arrayContaining(['accept', 'content-type', 'authorization', 'x-api-key']))
    expect(c.server).toMatchObject({ port: 8080, trust_proxy: 0, shutdown_grace_ms: 25_000 })
    expect(c.chain).toMatchObject({ rpc_url: '', gas_cap: 50_000_000 })
    expect(c.cache).toEqual({ url: 'memory://', simulation_ttl_seconds: 86400, max_memory_mb: 256 })
    expect(c.limits.max_batch_size).toBe(100)
  })

  it('test: a fixed predefined token, 100/60', () => {
    const c = loadConfig({ env: { APP_ENV: 'test' } })
    expect(c.api.auth_token).toBe('test-token-0123456789abcdef')
    expect(c.api).toMatchObject({ rate_limit_requests: 100, rate_limit_duration: 60 })
    expect(c.api).toMatchObject({ fork_rpc_rate_limit_requests: 100_000, fork_rpc_rate_limit_duration: 60 })
  })

  it('production: 1000/60, restricted origins, and a token required', () => {
    const c = loadConfig({ env: { APP_ENV: 'production', AUTH_TOKEN: 'prod-secret-token' } })
    expect(c.api).toMatchObject({ rate_limit_requests: 1000, rate_limit_duration: 60, auth_token: 'prod-secret-token' })
    expect(c.api).toMatchObject({ fork_rpc_rate_limit_requests: 6000, fork_rpc_rate_limit_duration: 60 })
    expect(c.api.cors.allowed_origins).not.toContain('*')
    expect(() => loadConfig({ env: { APP_ENV: 'production' } })).toThrow(/auth_token.*AUTH_TOKEN/)
    expect(() => loadConfig({ env: { APP_ENV: 'production', AUTH_TOKEN: '  ' } })).toThrow(ConfigError)
  })

  it('environment variables override keys (fixed names and the rest)', () => {
    const c = loadConfig({
      env: {
        APP_ENV: 'test',
        HOST: '0.0.0.0',
        PORT: '9090',
        RPC_URL: 'http://127.0.0.1:8545',
        CACHE_URL: 'redis://127.0.0.1:6379/0',
        AUTH_TOKEN: 'from-env',
        LOG_LEVEL: 'debug',
        RATE_LIMIT_REQUESTS: '7',
        RATE_LIMIT_DURATION: '9',
        FORK_RPC_RATE_LIMIT_REQUESTS: '11',
        FORK_RPC_RATE_LIMIT_DURATION: '13',
        WORKERS: '2',
        TRUST_PROXY: '1',
        SHUTDOWN_GRACE_MS: '5000',
        CORS_ALLOWED_ORIGINS: 'https://a.example, https://b.example',
        CORS_ALLOW_CREDENTIALS: 'true',
        GAS_CAP: '1000000',
      },
    })
    expect(c.server).toMatchObject({ host: '0.0.0.0', port: 9090, workers: 2, trust_proxy: 1, shutdown_grace_ms: 5000 })
    expect(c.chain).toMatchObject({ rpc_url: 'http://127.0.0.1:8545', gas_cap: 1_000_000 })
    expect(c.cache.url).toBe('redis://127.0.0.1:6379/0')
    expect(c.api).toMatchObject({ auth_token: 'from-env', rate_limit_requests: 7, rate_limit_duration: 9 })
    expect(c.api).toMatchObject({ fork_rpc_rate_limit_requests: 11, fork_rpc_rate_limit_duration: 13 })
    expect(c.api.cors).toMatchObject({ allowed_origins: ['https://a.example', 'https://b.example'], allow_credentials: true })
    expect(c.log.level).toBe('debug')
  })

  it('a bad environment value names the variable and the key, never the value', () => {
    expect(() => loadConfig({ env: { PORT: 'eighty' } })).toThrow('config server.port (from PORT): expected a non-negative integer')
    expect(() => loadConfig({ env: { PORT: '70000' } })).toThrow(/server\.port \(from PORT\)/)
    expect(() => loadConfig({ env: { LOG_LEVEL: 'loud' } })).toThrow(/log\.level \(from LOG_LEVEL\)/)
    expect(() => loadConfig({ env: { APP_ENV: 'staging' } })).toThrow(/APP_ENV.*development, production, test/)
  })

  it('a bad key in a file is named: unknown key, wrong type, missing key', () => {
    const typo = configDirWith((t) => t.replace('rate_limit_requests', 'rate_limit_request'))
    expect(() => loadConfig({ env: { APP_ENV: 'test' }, configDir: typo })).toThrow(/api\.rate_limit_request \(in test\.toml\): unknown key/)
    const wrongType = configDirWith((t) => t.replace('max_age = 86400', 'max_age = "a day"'))
    expect(() => loadConfig({ env: { APP_ENV: 'test' }, configDir: wrongType })).toThrow(/api\.cors\.max_age \(in test\.toml\)/)
    const missing = configDirWith((t) => t.replace(/^gas_cap = .*$/m, ''))
    expect(() => loadConfig({ env: { APP_ENV: 'test' }, configDir: missing })).toThrow(/chain\.gas_cap \(in test\.toml\): missing key/)
    const broken = configDirWith((t) => `${t}\n[[[`)
    expect(() => loadConfig({ env: { APP_ENV: 'test' }, configDir: broken })).toThrow(/config test\.toml/)
  })

  it('finds its files from any working directory', () => {
    const cwd = process.cwd()
    try {
      process.chdir(tmpdir())
      expect(loadConfig({ env: { APP_ENV: 'test' } }).env).toBe('test')
    } finally {
      process.chdir(cwd)
    }
  })
})

describe('the service process', () => {
  it('production without a token refuses to start: exit code 1 and one line naming the reason', () => {
    const env = { ...process.env, APP_ENV: 'production' } as Record<string, string>
    delete env.AUTH_TOKEN
    const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], { env, encoding: 'utf8', timeout: 60_000, cwd: root })
    expect(run.status).toBe(1)
    const lines = run.stderr.split('\n').filter((l) => l.trim() !== '')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/production requires api\.auth_token.*AUTH_TOKEN/)
  })

  it('serves on the embedded devnet, then stops on SIGTERM: exit code 0, stop logged, no token in the log', async () => {
    const env = { ...process.env, APP_ENV: 'test', PORT: '0', WORKERS: '1', LOG_LEVEL: 'info' } as Record<string, string>
    delete env.AUTH_TOKEN
    const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], { env, cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    const lines: Record<string, unknown>[] = []
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const listening = new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        const entry = JSON.parse(line) as Record<string, unknown>
        lines.push(entry)
        if (entry.msg === 'listening') resolve(entry.url as string)
      })
      child.once('exit', (code) => reject(new Error(`exited early (${code}): ${stderr}`)))
    })
    try {
      const url = await listening
      const health = await fetch(`${url}/v1/health`, { headers: { connection: 'close' } })
      expect(health.status).toBe(200)
      expect(((await health.json()) as { chainId: number }).chainId).toBe(31337)
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      const [code] = await exited
      expect(code).toBe(0)
      expect(lines.map((l) => l.msg)).toEqual(expect.arrayContaining(['listening', 'request', 'stopped']))
      expect(JSON.stringify(lines)).not.toContain('test-token-0123456789abcdef')
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL')
    }
  })
})
